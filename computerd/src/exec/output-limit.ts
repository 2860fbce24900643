/**
 * The output cap and UTF-8 decoding of an exec's two streams. Bytes past the cap (stdout and
 * stderr together) are dropped and counted; the truncation marker is emitted once, at the end,
 * on the stream that crossed the cap, saying how much was dropped.
 */
import type { StreamName } from "./types.ts";

/** Text kept from one read: the decoded text and the raw bytes it came from. */
export interface KeptOutput {
  data: string;
  bytes: number;
}

/** The marker appended once when output was dropped. */
export function truncationMarker(droppedBytes: number): string {
  return `\n[output truncated: ${droppedBytes} bytes dropped]\n`;
}

/** Largest n' ≤ n such that cutting `chunk` at n' does not split a UTF-8 character. */
export function utf8Boundary(chunk: Uint8Array, n: number): number {
  let cut = Math.min(n, chunk.length);
  while (cut > 0 && cut < chunk.length && ((chunk[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return cut;
}

/** Applies one exec's output cap and decodes its streams. */
export class OutputLimit {
  readonly #cap: number;
  readonly #decoders: Record<StreamName, TextDecoder> = {
    stdout: new TextDecoder("utf-8"),
    stderr: new TextDecoder("utf-8"),
  };
  #kept = 0;
  #dropped = 0;
  #crossedOn: StreamName | undefined;

  /** `cap`: output bytes kept per exec, both streams together. */
  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Bytes dropped so far. */
  get droppedBytes(): number {
    return this.#dropped;
  }

  /** Takes one read; answers the text to emit, or undefined when all of it was dropped. */
  take(stream: StreamName, chunk: Uint8Array): KeptOutput | undefined {
    let keep = chunk.length;
    if (this.#crossedOn !== undefined) keep = 0;
    else if (this.#kept + chunk.length > this.#cap) {
      keep = utf8Boundary(chunk, this.#cap - this.#kept);
      this.#crossedOn = stream;
    }
    this.#dropped += chunk.length - keep;
    if (keep === 0) return undefined;
    this.#kept += keep;
    const data = this.#decoders[stream].decode(chunk.subarray(0, keep), { stream: true });
    return { data, bytes: keep };
  }

  /** The text a stream's decoder still holds at its end (an incomplete character). */
  flush(stream: StreamName): string {
    return this.#decoders[stream].decode();
  }

  /** The marker and its stream, when something was dropped. */
  marker(): { stream: StreamName; data: string } | undefined {
    if (this.#crossedOn === undefined || this.#dropped === 0) return undefined;
    return { stream: this.#crossedOn, data: truncationMarker(this.#dropped) };
  }
}
