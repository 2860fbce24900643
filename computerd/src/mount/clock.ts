import { fromMs, type Timespec } from "@computer/vfs";

/** The current time with sub-millisecond precision. */
export function now(): Timespec {
  return fromMs(performance.timeOrigin + performance.now());
}
