/** Polling with a deadline for the e2e suites (never a fixed sleep). */

/** Polls `probe` every 100 ms until it returns a value, for up to `ms`; throws past that. */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
