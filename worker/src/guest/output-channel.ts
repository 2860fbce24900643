/**
 * A guest's stdout/stderr on their way to the DO: pieces are coalesced while a send is in
 * flight (one RPC carries many), sent one call at a time so they arrive in order, and cut at
 * the exec's output cap, where a truncation marker is the last thing sent.
 */
import type { GuestOutputApi, OutputPiece } from "../guest-hosting/guest-wire.ts";

/** Appended (on stderr) once output passes the cap. */
export const TRUNCATION_MARKER = "\n[output truncated: the exec's output cap was reached]\n";

const encoder = new TextEncoder();

/** Cuts `text` to at most `budget` UTF-8 bytes on a character boundary. */
function cut(text: string, budget: number): string {
  if (budget <= 0) return "";
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.codePointAt(end) ?? 0;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > budget) break;
    bytes += size;
    end += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, end);
}

/** One exec's output channel. */
export class OutputChannel {
  readonly #api: GuestOutputApi;
  readonly #cap: number;
  #used = 0;
  #queue: OutputPiece[] = [];
  #sending: Promise<void> = Promise.resolve();
  #busy = false;
  #failed: unknown;
  /** True once output went past the cap. */
  truncated = false;
  /** RPC calls made. */
  calls = 0;

  constructor(api: GuestOutputApi, cap: number) {
    this.#api = api;
    this.#cap = Math.max(0, cap - encoder.encode(TRUNCATION_MARKER).byteLength);
  }

  /** Queues `data` on `stream` (dropped past the cap). */
  write(stream: "stdout" | "stderr", data: string): void {
    if (data === "" || this.truncated) return;
    const size = encoder.encode(data).byteLength;
    if (this.#used + size > this.#cap) {
      const fit = cut(data, this.#cap - this.#used);
      this.truncated = true;
      this.#used = this.#cap;
      if (fit !== "") this.#push({ stream, data: fit });
      this.#push({ stream: "stderr", data: TRUNCATION_MARKER });
      return;
    }
    this.#used += size;
    this.#push({ stream, data });
  }

  #push(piece: OutputPiece): void {
    const last = this.#queue.at(-1);
    if (last !== undefined && last.stream === piece.stream) last.data += piece.data;
    else this.#queue.push(piece);
    if (!this.#busy) this.#sending = this.#pump();
  }

  async #pump(): Promise<void> {
    this.#busy = true;
    try {
      while (this.#queue.length > 0) {
        const pieces = this.#queue;
        this.#queue = [];
        this.calls++;
        try {
          await this.#api.write(pieces);
        } catch (err) {
          this.#failed ??= err;
        }
      }
    } finally {
      this.#busy = false;
    }
  }

  /** Resolves once everything queued has been delivered (rejects if a send failed). */
  async flush(): Promise<void> {
    while (this.#busy || this.#queue.length > 0) {
      if (!this.#busy) this.#sending = this.#pump();
      await this.#sending;
    }
    if (this.#failed !== undefined) throw this.#failed;
  }
}
