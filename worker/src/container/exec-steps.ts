/**
 * How long each step of a container exec took in the DO, reported beside its counters in
 * X-Exec-Metrics: the link (connect), the push of the DO's changes, the command's start, its run
 * until the exit arrived, and the fence. workerd's clock moves only across I/O, and every step
 * ends on I/O (an RPC answer), so each step's time is what the DO waited for it.
 */
export class ExecSteps {
  readonly durations: Record<string, number> = {};
  #last = Date.now();

  /** The step `name` ended now. */
  reached(name: string): void {
    const now = Date.now();
    this.durations[name] = now - this.#last;
    this.#last = now;
  }
}
