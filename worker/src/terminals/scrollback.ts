/**
 * A terminal's recent output: the last `capacity` bytes, replayed to a viewer that attaches
 * (or re-attaches after a dropped connection) so it sees the screen it left.
 */

/** Default bytes of scrollback kept per terminal. */
export const SCROLLBACK_BYTES = 256 * 1024;

/** The most recent bytes of a stream, at most `capacity`. */
export class Scrollback {
  readonly #capacity: number;
  #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(capacity = SCROLLBACK_BYTES) {
    this.#capacity = capacity;
  }

  /** Appends `data`, dropping the oldest bytes past the capacity. */
  push(data: Uint8Array): void {
    if (data.byteLength === 0) return;
    this.#chunks.push(data);
    this.#size += data.byteLength;
    while (this.#size > this.#capacity) {
      const first = this.#chunks[0];
      if (first === undefined) break;
      const excess = this.#size - this.#capacity;
      if (first.byteLength <= excess) {
        this.#chunks.shift();
        this.#size -= first.byteLength;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  /** Everything kept, oldest first, as one array. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out;
  }

  get size(): number {
    return this.#size;
  }
}
