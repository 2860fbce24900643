/**
 * sha-256 values computed ahead, off the JS thread (the write-back hashes completed pages on
 * the thread pool), handed to the mirror's vfs for the one store they belong to: the vfs's
 * hash function asks here first and hashes itself when these exact bytes are not named.
 */

/** The hash of one byte range, known while one store runs. */
export class KnownHashes {
  private bytes: Uint8Array | undefined;
  private hash = "";

  /** Runs `store` with `hash` known as the sha-256 of `bytes` (that memory, offset and length). */
  during<T>(bytes: Uint8Array, hash: string, store: () => T): T {
    this.bytes = bytes;
    this.hash = hash;
    try {
      return store();
    } finally {
      this.bytes = undefined;
    }
  }

  /** The known hash of `data`, when it is exactly the bytes `during` named. */
  lookup(data: Uint8Array): string | undefined {
    const known = this.bytes;
    if (!known || known.buffer !== data.buffer) return undefined;
    return known.byteOffset === data.byteOffset && known.byteLength === data.byteLength
      ? this.hash
      : undefined;
  }
}
