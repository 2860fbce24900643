/**
 * The host's spare daemons (spare-daemon.ts), `size` of them started ahead. One alone served a
 * computer made after a pause, but computers made back to back found it still starting: its
 * Node start (~0.3 s of CPU here) ran beside the previous computer's start. With two, the next
 * computer takes the one that is ready while the one taken is replaced.
 */
import type { SpareDaemon } from "./spare-daemon.ts";

/** The spares `computerd host` keeps by default (`--spare on`). */
export const DEFAULT_SPARES = 2;

/** Spares kept started; each one taken is replaced at once. */
export class SparePool {
  readonly #size: number;
  readonly #start: () => SpareDaemon;
  #spares: SpareDaemon[] = [];
  #closed = false;

  constructor(size: number, start: () => SpareDaemon) {
    this.#size = size;
    this.#start = start;
    this.#fill();
  }

  /**
   * A ready spare if one is, else one still starting (it reads its assignment once ready: the
   * part of its start already done is gained; spares that went away are replaced first).
   * Undefined with a pool of none or after stop.
   */
  take(): SpareDaemon | undefined {
    this.#spares = this.#spares.filter((spare) => spare.available);
    this.#fill();
    const taken = this.#spares.find((spare) => spare.ready) ?? this.#spares[0];
    this.#spares = this.#spares.filter((spare) => spare !== taken);
    this.#fill();
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
