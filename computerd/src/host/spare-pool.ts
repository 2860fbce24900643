/**
 * The host's spare daemons (spare-daemon.ts), `size` of them started ahead (`--spare N`). One
 * serves a computer made after a pause; computers made back to back find it still starting
 * (its Node start, ~0.5 s of CPU here, runs beside the previous computer's start), and more
 * spares let them find one ready. One by default: on this 2-core machine a second spare's
 * refill, started while the computer that took the first ran its commands, made the warm
 * container round trip ~8 ms slower (docs/BENCH.md, session 21), and back to back the spares
 * could not be started as fast as computers came anyway.
 *
 * The replacement starts REFILL_DELAY_MS after a take, not in it, while another spare is left:
 * starting a spare forks this host's Node, 5–10 ms of its thread, which the computer that took
 * one was waiting on. The take that leaves none starts them at once: computers coming faster
 * than that would otherwise wait for a spare's whole start.
 */
import type { SpareDaemon } from "./spare-daemon.ts";

/** The spares `computerd host` keeps by default (`--spare on`). */
export const DEFAULT_SPARES = 1;

/** How long after a take the pool is filled again (a computer's start is over by then here). */
export const REFILL_DELAY_MS = 500;

/** Runs `fill` later (tests run it by hand). */
export type Later = (fill: () => void) => void;

const afterDelay: Later = (fill) => setTimeout(fill, REFILL_DELAY_MS).unref();

/** Spares kept started; each one taken is replaced a moment later. */
export class SparePool {
  readonly #size: number;
  readonly #start: () => SpareDaemon;
  readonly #later: Later;
  #spares: SpareDaemon[] = [];
  #refilling = false;
  #closed = false;

  constructor(size: number, start: () => SpareDaemon, later: Later = afterDelay) {
    this.#size = size;
    this.#start = start;
    this.#later = later;
    this.#fill();
  }

  /**
   * A ready spare if one is, else one still starting (it reads its assignment once ready: the
   * part of its start already done is gained). When none runs (all taken or gone), one is
   * started now and handed out. Undefined with a pool of none or after stop.
   */
  take(): SpareDaemon | undefined {
    this.#spares = this.#spares.filter((spare) => spare.available);
    if (this.#spares.length === 0) this.#fill();
    const taken = this.#spares.find((spare) => spare.ready) ?? this.#spares[0];
    this.#spares = this.#spares.filter((spare) => spare !== taken);
    if (this.#spares.length === 0) this.#fill();
    else if (!this.#refilling && !this.#closed) {
      this.#refilling = true;
      this.#later(() => {
        this.#refilling = false;
        this.#spares = this.#spares.filter((spare) => spare.available);
        this.#fill();
      });
    }
    return taken;
  }

  /** Ends every untaken spare; none is started again. */
  stop(): void {
    this.#closed = true;
    for (const spare of this.#spares.splice(0)) spare.stop();
  }

  #fill(): void {
    while (!this.#closed && this.#spares.length < this.#size) this.#spares.push(this.#start());
  }
}
