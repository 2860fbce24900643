/**
 * Access times the way Linux's default `relatime` mount option keeps them (tmpfs and ext4
 * are mounted relatime): a read, readdir or symlink follow updates atime only when it is not
 * newer than mtime or ctime, or is a day old. The FUSE kernel never updates atime itself
 * (its inodes are S_NOATIME), so the daemon applies this rule on the requests that reach it.
 */
import type { SqlLike, Stat, Timespec, Vfs } from "@computer/vfs";

/** An atime this many seconds old is refreshed by the next access whatever mtime and ctime say. */
export const RELATIME_MAX_AGE_SEC = 24 * 60 * 60;

function compare(a: Timespec, b: Timespec): number {
  return a.sec !== b.sec ? a.sec - b.sec : a.nsec - b.nsec;
}

/**
 * True when an access at `now` must update the atime of a file with these times (Linux
 * `relatime_need_update`, plus its "already equal to now" shortcut). An atime set in the
 * future is left alone until mtime or ctime pass it.
 */
export function atimeDue(stat: Pick<Stat, "atime" | "mtime" | "ctime">, now: Timespec): boolean {
  if (compare(stat.atime, now) === 0) return false;
  return (
    compare(stat.mtime, stat.atime) >= 0 ||
    compare(stat.ctime, stat.atime) >= 0 ||
    now.sec - stat.atime.sec >= RELATIME_MAX_AGE_SEC
  );
}

/** How far apart the clocks that stamp mtime and ctime (the vfs's wall clock, the write-back's monotonic one) may be. */
const CLOCK_SKEW_SEC = 1;

/**
 * The atime an access at `now` stores. Normally `now`; but mtime and ctime come from other
 * clocks that may run slightly ahead, and an atime a little behind the change that made it
 * due would make every following read due as well: then it becomes that change's time + 1 ns.
 * A time set far in the future (touch -m) is not followed.
 */
export function accessTime(stat: Pick<Stat, "mtime" | "ctime">, now: Timespec): Timespec {
  const changed = compare(stat.mtime, stat.ctime) >= 0 ? stat.mtime : stat.ctime;
  if (compare(changed, now) < 0 || changed.sec - now.sec > CLOCK_SKEW_SEC) return now;
  return changed.nsec === 999_999_999
    ? { sec: changed.sec + 1, nsec: 0 }
    : { sec: changed.sec, nsec: changed.nsec + 1 };
}

/**
 * Stores an inode's atime in the mirror as one grouped write (the batch commits within 20 ms,
 * never per read), through `Vfs.recordAccess`: unlike utimes it sets neither ctime nor a change
 * record, since an access is neither a change POSIX records in ctime nor one the sync engine
 * sends (atime is not in its fingerprint).
 */
export function atimeWriter(mirror: { vfs: Vfs; sql: SqlLike }): (ino: number, atime: Timespec) => void {
  return (ino, atime) => mirror.sql.transaction(() => mirror.vfs.recordAccess(ino, atime));
}
