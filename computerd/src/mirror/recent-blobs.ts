/**
 * Pages the write-back stored lately, by hash, in memory: the upload sends the chunks of a file
 * being written from here instead of reading each back out of the mirror's SQLite (a copy out
 * of its pages into fresh memory, a quarter of the JS thread's time while a command wrote
 * 100 MiB). The bytes are the stored page itself, never changed after its store (the
 * clean-chunk cache serves reads from the same memory). Bounded: past `maxBytes` the oldest
 * go; the upload then reads those from SQLite as before.
 */
export class RecentBlobs {
  readonly #maxBytes: number;
  readonly #blobs = new Map<string, Uint8Array>();
  #bytes = 0;

  constructor(maxBytes = 64 << 20) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps `data`, just stored as the blob `hash`. */
  note(hash: string, data: Uint8Array): void {
    if (this.#blobs.has(hash) || data.length > this.#maxBytes) return;
    this.#blobs.set(hash, data);
    this.#bytes += data.length;
    for (const [oldest, bytes] of this.#blobs) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#blobs.delete(oldest);
      this.#bytes -= bytes.length;
    }
  }

  /** The bytes of blob `hash`, when held. */
  get(hash: string): Uint8Array | undefined {
    return this.#blobs.get(hash);
  }

  /** Lets go of `hashes` (they reached the Durable Object). */
  forget(hashes: Iterable<string>): void {
    for (const hash of hashes) {
      const data = this.#blobs.get(hash);
      if (!data) continue;
      this.#blobs.delete(hash);
      this.#bytes -= data.length;
    }
  }

  /** Lets go of everything (a fence sent it all). */
  clear(): void {
    this.#blobs.clear();
    this.#bytes = 0;
  }
}
