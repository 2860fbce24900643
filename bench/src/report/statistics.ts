/**
 * The statistics the reports and the compare gate use, on simple-statistics: the median, and
 * how noisy a set of timings is, estimated from the timings themselves (no fixed constant).
 */
import { medianAbsoluteDeviation, median as ssMedian } from "simple-statistics";

/** The median, or undefined for no samples. */
export function median(samples: readonly number[]): number | undefined {
  return samples.length === 0 ? undefined : ssMedian([...samples]);
}

/** MAD × 1.4826 estimates the standard deviation of normally distributed samples, robustly. */
const MAD_TO_SIGMA = 1.4826;
/** The standard error of a median is about 1.2533 σ / √n (normal samples). */
const MEDIAN_SE = 1.2533;

/** Fewer samples than this on either side: the noise cannot be estimated, the change is not judged. */
export const MIN_SAMPLES = 3;

/**
 * The relative standard error of the median of `samples` (0.05 = 5 %): robust σ (from the
 * median absolute deviation) over the median, times 1.2533 / √n. Undefined below MIN_SAMPLES or
 * for a median of 0.
 */
export function relativeMedianError(samples: readonly number[]): number | undefined {
  const m = median(samples);
  if (samples.length < MIN_SAMPLES || m === undefined || m <= 0) return undefined;
  const sigma = MAD_TO_SIGMA * medianAbsoluteDeviation([...samples]);
  return (MEDIAN_SE * sigma) / m / Math.sqrt(samples.length);
}

/** How many standard errors of the difference a change must exceed to count (≈ 99.7 % one-sided). */
export const NOISE_Z = 3;

/**
 * The noise threshold of comparing two sets of timings, as a fraction of the old median: NOISE_Z
 * standard errors of the difference of the two medians, each side's error estimated from its own
 * samples. Undefined when either side has too few samples.
 */
export function noiseThreshold(before: readonly number[], after: readonly number[]): number | undefined {
  const a = relativeMedianError(before);
  const b = relativeMedianError(after);
  if (a === undefined || b === undefined) return undefined;
  return NOISE_Z * Math.sqrt(a * a + b * b);
}
