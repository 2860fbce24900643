/**
 * Which of the mirror's changes a background upload sends: those at least `settleMs` old. The
 * revision is sampled at every upload; the answer is the latest sample taken `settleMs` ago or
 * earlier, so a burst of writes to one file (create, write, chmod, utimes) goes out once, as
 * it ended, instead of once per intermediate state caught by an upload.
 */
export class SettledRev {
  readonly #settleMs: number;
  #samples: { at: number; rev: number }[] = [];

  constructor(settleMs: number) {
    this.#settleMs = settleMs;
  }

  /** Records `rev` as of `at` (ms); answers the latest revision sampled by `at - settleMs` (undefined: none). */
  sample(at: number, rev: number): number | undefined {
    this.#samples.push({ at, rev });
    let settled = -1;
    for (let i = 0; i < this.#samples.length; i++) {
      if ((this.#samples[i]?.at ?? at) <= at - this.#settleMs) settled = i;
    }
    if (settled < 0) return undefined;
    // Older samples than the answer are never the answer again.
    this.#samples = this.#samples.slice(settled);
    return this.#samples[0]?.rev;
  }
}
