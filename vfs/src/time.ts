/** Timespec helpers: nanosecond times stored as (seconds, nanoseconds) pairs. */
import { FsError } from "./errors.ts";
import type { TimeArg, Timespec } from "./types.ts";

/** A Timespec from milliseconds since the epoch (fractions keep sub-ms precision). */
export function fromMs(ms: number): Timespec {
  const sec = Math.floor(ms / 1000);
  const nsec = Math.min(999_999_999, Math.round((ms - sec * 1000) * 1e6));
  return { sec, nsec };
}

/** Milliseconds since the epoch (may lose sub-microsecond precision). */
export function toMs(time: Timespec): number {
  return time.sec * 1000 + time.nsec / 1e6;
}

/**
 * ISO-8601 string of a Timespec, cut to the millisecond toward the past (as the seconds of a
 * timespec are): a Date truncates toward zero, which would move a time just before 1970 to
 * the epoch itself, so the whole milliseconds are computed here.
 */
export function toIso(time: Timespec): string {
  return new Date(time.sec * 1000 + Math.floor(time.nsec / 1e6)).toISOString();
}

/**
 * Largest |seconds| a time may have: what a JS Date (and so every ISO-8601 answer of the
 * API) can represent, ±8.64e15 ms (±275,760 years). ext4 stops at year 2446, so real tools
 * never come near it; beyond it is EINVAL rather than a row that cannot be read back.
 */
export const TIME_SEC_MAX = 8_640_000_000_000;

/** Resolves a TimeArg against `now`; undefined means "omit" (leave unchanged). */
export function resolveTime(arg: TimeArg, now: Timespec, path: string): Timespec | undefined {
  if (arg === "omit") return undefined;
  if (arg === "now") return now;
  if (typeof arg === "number") {
    if (!Number.isFinite(arg)) throw new FsError("EINVAL", "utimes", path, "time is not finite");
    return checkRange(fromMs(arg), path);
  }
  if (!Number.isInteger(arg.sec) || !Number.isInteger(arg.nsec) || arg.nsec < 0 || arg.nsec > 999_999_999) {
    throw new FsError("EINVAL", "utimes", path, "invalid timespec");
  }
  return checkRange({ sec: arg.sec, nsec: arg.nsec }, path);
}

function checkRange(time: Timespec, path: string): Timespec {
  if (Math.abs(time.sec) > TIME_SEC_MAX) throw new FsError("EINVAL", "utimes", path, "time out of range");
  return time;
}

/** The later of two times. */
export function laterTime(a: Timespec, b: Timespec): Timespec {
  return a.sec > b.sec || (a.sec === b.sec && a.nsec >= b.nsec) ? a : b;
}

/**
 * The ctime a store of writes made earlier (at `written`: a mount's write-back) records: their
 * time, unless the node changed after them (a link made while the writes waited), whose later
 * ctime it keeps: a store never moves ctime back before a change it follows.
 */
export function contentChangeTime(node: { ctime_s: number; ctime_ns: number }, written: Timespec): Timespec {
  return laterTime(written, { sec: node.ctime_s, nsec: node.ctime_ns });
}
