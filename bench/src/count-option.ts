/** The whole-number options the bench commands share (--reps, --warmup, --runs). */

/** `value` as an integer of at least `min`, or `fallback` when the option was not given. */
export function countOption(value: string | undefined, fallback: number, name: string, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be an integer >= ${min}, got "${value}"`);
  return n;
}
