/**
 * Deterministic pseudo-random bytes for the large-file scenarios. The vfs stores content by
 * sha-256, so zeros (as `dd if=/dev/zero` writes) would collapse 64 chunks into one; these
 * bytes make every chunk distinct, as real files are. No `node:*`: bundled into the Worker.
 */

/** `length` bytes from xorshift32 seeded with `seed`; the same arguments give the same bytes. */
export function pseudoRandomBytes(length: number, seed = 0x9e3779b9): Uint8Array {
  const words = new Uint32Array(Math.ceil(length / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    words[i] = x;
  }
  return new Uint8Array(words.buffer, 0, length);
}

/** The pieces of `bytes`, `pieceBytes` at a time (views, no copies), as a stream source. */
export async function* piecesOf(bytes: Uint8Array, pieceBytes: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += pieceBytes) {
    yield bytes.subarray(offset, Math.min(bytes.length, offset + pieceBytes));
  }
}
