/**
 * A computer id, as docs/API.md defines it: the one pattern the Worker's routes, the dial-back
 * path, `computerd host`, the docker launcher and the OpenAPI document check against. It
 * imports nothing, so computerd's image carries this file alone (`@computer/sdk/computer-id`).
 */

/** A computer id: a lower-case letter or digit, then up to 62 letters, digits or `-`. */
export const COMPUTER_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** True when `value` is a valid computer id. */
export function isComputerId(value: string): boolean {
  return COMPUTER_ID.test(value);
}
