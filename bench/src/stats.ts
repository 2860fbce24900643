/** Summary statistics of a benchmark's repeated timings. */

/** Median, spread and count of a set of samples (milliseconds). */
export interface Summary {
  median: number;
  /** Nearest-rank 95th percentile (with 5 samples: the largest). */
  p95: number;
  min: number;
  max: number;
  mean: number;
  n: number;
}

/** Summarises `samples`; throws on an empty set (a scenario always runs at least once). */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("no samples to summarise");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const at = (i: number) => sorted[i] ?? Number.NaN;
  const median = sorted.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
  const sum = sorted.reduce((a, b) => a + b, 0);
  const p95 = at(Math.min(sorted.length, Math.max(1, Math.ceil(0.95 * sorted.length))) - 1);
  return { median, p95, min: at(0), max: at(sorted.length - 1), mean: sum / sorted.length, n: sorted.length };
}
