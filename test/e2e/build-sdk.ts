/**
 * vitest globalSetup of the e2e project: builds @computer/sdk's dist/ when a source is newer, so
 * the `computer` bin the CLI tests run (node_modules/.bin/computer → sdk/dist) is the code under
 * test even when vitest runs without `make`.
 */
import { buildSdk } from "@computer/sdk/build";

export function setup(): void {
  buildSdk();
}
