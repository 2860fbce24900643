/**
 * A guest's stdout/stderr on their way to the DO: pieces are coalesced while a send is in
 * flight (one RPC carries many), sent one call at a time so they arrive in order, and cut at
 * the exec's output cap, where a truncation marker is the last thing sent.
 */
import { fitUtf8, utf8Length } from "../exec/output-cap.ts";
import type { GuestOutputApi, OutputPiece } from "../guest-hosting/guest-wire.ts";

/** Appended (on stderr) once output passes the cap. */
export const TRUNCATION_MARKER = "\n[output truncated: the exec's output cap was reached]\n";

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
    this.#cap = Math.max(0, cap - utf8Length(TRUNCATION_MARKER));
  }

  /** Queues `data` on `stream` (dropped past the cap). */
  write(stream: "stdout" | "stderr", data: string): void {
    if (data === "" || this.truncated) return;
    const size = utf8Length(data);
    if (this.#used + size > this.#cap) {
      const fit = fitUtf8(data, this.#cap - this.#used).text;
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
