/**
 * What kind of binary file a read tool met, from its first bytes (the signatures file(1) knows
 * best), so a model is told "image/png" rather than only "binary".
 */

/** Leading bytes of the common binary formats, and their media types. */
const SIGNATURES: readonly { type: string; bytes: readonly (number | undefined)[] }[] = [
  { type: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { type: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38] },
  // RIFF, four bytes of length, then WEBP.
  {
    type: "image/webp",
    bytes: [0x52, 0x49, 0x46, 0x46, undefined, undefined, undefined, undefined, 0x57, 0x45, 0x42, 0x50],
  },
  { type: "application/pdf", bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: "application/zip", bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: "application/gzip", bytes: [0x1f, 0x8b] },
  { type: "application/x-xz", bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { type: "application/wasm", bytes: [0x00, 0x61, 0x73, 0x6d] },
  { type: "application/x-executable", bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { type: "application/x-sqlite3", bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66] },
];

/** The media type of a binary file that starts with `head` (`application/octet-stream` if unknown). */
export function binaryKind(head: Uint8Array): string {
  for (const { type, bytes } of SIGNATURES) {
    if (bytes.length <= head.length && bytes.every((b, i) => b === undefined || head[i] === b)) return type;
  }
  return "application/octet-stream";
}
