/**
 * Which of the mirror's changes a background upload sends: those at least `settleMs` old. The
 * revision is sampled at every upload; the answer is the latest sample taken `settleMs` ago or
 * earlier, so a burst of writes to one file (create, write, chmod, utimes) goes out once, as
 * it ended, instead of once per intermediate state caught by an upload.
 *
 * A path rewritten more often than `settleMs` (a log, a progress file) is never that old: its
 * change record always carries a recent revision. So once the answer has stayed behind the
 * writes for `maxLagMs`, it is the current revision (and never less after): everything written
 * goes at least that often, settled or not.
 */
export class SettledRev {
  readonly #settleMs: number;
  readonly #maxLagMs: number;
  #samples: { at: number; rev: number }[] = [];
  /** When a sample first saw writes no answer covered since (undefined: all covered). */
  #behindSince: number | undefined;
  /** The highest revision answered for the lag: later answers are never below it. */
  #floor = 0;

  constructor(settleMs: number, maxLagMs = Number.POSITIVE_INFINITY) {
    this.#settleMs = settleMs;
    this.#maxLagMs = maxLagMs;
  }

  /** Records `rev` as of `at` (ms); answers the revision an upload may send up to (undefined: none yet). */
  sample(at: number, rev: number): number | undefined {
    this.#samples.push({ at, rev });
    this.#behindSince ??= at;
    if (at - this.#behindSince >= this.#maxLagMs) this.#floor = rev;
    const settled = this.#settled(at);
    const answer = settled === undefined ? this.#floor || undefined : Math.max(settled, this.#floor);
    if (answer !== undefined && answer >= rev) this.#behindSince = undefined;
    return answer;
  }

  /** The latest revision sampled by `at - settleMs`; older samples are dropped (never the answer again). */
  #settled(at: number): number | undefined {
    let settled = -1;
    for (let i = 0; i < this.#samples.length; i++) {
      if ((this.#samples[i]?.at ?? at) <= at - this.#settleMs) settled = i;
    }
    if (settled < 0) return undefined;
    this.#samples = this.#samples.slice(settled);
    return this.#samples[0]?.rev;
  }
}
