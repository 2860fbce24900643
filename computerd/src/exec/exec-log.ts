/**
 * The per-exec log: every output event (bounded by the exec's output cap) and the result,
 * read by any number of readers from any seq, each at its own pace. A flow-controlled reader
 * that falls too far behind raises back-pressure, which the runner turns into paused pipes.
 */
import type { ExecLogFile } from "./exec-log-file.ts";
import type { ExecResult, OutputEvent, StreamName } from "./types.ts";

/** Back-pressure thresholds, in output bytes a reader has not taken yet. */
export interface Watermarks {
  /** A flow-controlled reader this far behind pauses the producer (default 256 KiB). */
  highWaterBytes: number;
  /** The producer resumes once every such reader is at most this far behind (default 64 KiB). */
  lowWaterBytes: number;
}

/** Default back-pressure thresholds. */
export const DEFAULT_WATERMARKS: Watermarks = { highWaterBytes: 256 * 1024, lowWaterBytes: 64 * 1024 };

/** A cursor over a log. `next()` resolves with the next event, or undefined after the last. */
export interface LogReader {
  next(): Promise<OutputEvent | undefined>;
  /** Detaches the reader (its back-pressure goes with it). Idempotent. */
  close(): void;
}

/** Per-exec event log. Seq numbers start at 0 and are shared by both streams. */
export class ExecLog {
  readonly #events: OutputEvent[] = [];
  /** #ends[i]: output bytes up to and including event i. */
  readonly #ends: number[] = [];
  readonly #watermarks: Watermarks;
  readonly #file: ExecLogFile | undefined;
  readonly #readers = new Set<{ flowControl: boolean; consumed: () => number }>();
  readonly #wakers = new Set<() => void>();
  #bytes = 0;
  #result: ExecResult | undefined;
  #paused = false;
  #onPressure: ((paused: boolean) => void) | undefined;

  constructor(watermarks: Watermarks = DEFAULT_WATERMARKS, file?: ExecLogFile) {
    this.#watermarks = watermarks;
    this.#file = file;
  }

  /** Called with true when a flow-controlled reader falls behind, false once all caught up. */
  set onPressure(listener: ((paused: boolean) => void) | undefined) {
    this.#onPressure = listener;
  }

  /** True while back-pressure is raised. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Seq of the last event (-1: none yet). */
  get lastSeq(): number {
    return this.#events.length - 1;
  }

  /** The result, once the exec has finished. */
  get result(): ExecResult | undefined {
    return this.#result;
  }

  /** Appends one piece of output that was `bytes` bytes long before decoding. */
  append(stream: StreamName, data: string, bytes: number): OutputEvent {
    if (this.#result) throw new Error("exec log: append after finish");
    const event: OutputEvent = { seq: this.#events.length, stream, data };
    this.#bytes += bytes;
    this.#events.push(event);
    this.#ends.push(this.#bytes);
    this.#file?.event(event);
    this.#wake();
    this.#updatePressure();
    return event;
  }

  /** Records the result: readers get the remaining events, then the end. */
  finish(result: ExecResult): void {
    if (this.#result) return;
    this.#result = result;
    this.#file?.finish(result);
    this.#wake();
    if (this.#paused) {
      this.#paused = false;
      this.#onPressure?.(false);
    }
  }

  /** The events after `afterSeq` (-1: all), as they stand now. */
  events(afterSeq = -1): OutputEvent[] {
    return this.#events.slice(Math.max(0, afterSeq + 1));
  }

  /** One stream's text, concatenated. */
  text(stream: StreamName): string {
    let text = "";
    for (const event of this.#events) if (event.stream === stream) text += event.data;
    return text;
  }

  /**
   * A reader starting after `afterSeq` (-1: from the first event). A `flowControl` reader
   * holds the producer back while it is more than the high watermark behind; a reader that
   * is not read from must then be closed, or the command stalls (until its timeout).
   */
  reader(afterSeq = -1, flowControl = true): LogReader {
    let index = Math.max(0, afterSeq + 1);
    let closed = false;
    const state = {
      flowControl,
      consumed: () => (index === 0 ? 0 : (this.#ends[Math.min(index, this.#ends.length) - 1] ?? 0)),
    };
    this.#readers.add(state);
    this.#updatePressure();
    const next = async (): Promise<OutputEvent | undefined> => {
      for (;;) {
        if (closed) return undefined;
        const event = this.#events[index];
        if (event) {
          index += 1;
          this.#updatePressure();
          return event;
        }
        if (this.#result) return undefined;
        await new Promise<void>((resolve) => this.#wakers.add(resolve));
      }
    };
    const close = () => {
      if (closed) return;
      closed = true;
      this.#readers.delete(state);
      this.#updatePressure();
      this.#wake();
    };
    return { next, close };
  }

  #wake(): void {
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const wake of wakers) wake();
  }

  #updatePressure(): void {
    if (this.#result) return;
    let lag = 0;
    for (const reader of this.#readers) {
      if (reader.flowControl) lag = Math.max(lag, this.#bytes - reader.consumed());
    }
    const limit = this.#paused ? this.#watermarks.lowWaterBytes : this.#watermarks.highWaterBytes;
    const paused = lag > limit;
    if (paused === this.#paused) return;
    this.#paused = paused;
    this.#onPressure?.(paused);
  }
}
