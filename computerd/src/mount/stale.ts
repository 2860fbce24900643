/**
 * Stale mounts: a daemon that was killed leaves its mount point answering
 * ENOTCONN until someone unmounts it. Found through /proc/self/mountinfo (never
 * by touching the mount point, which could hang on a live but stuck daemon) and
 * removed with a lazy unmount: fusermount3 -uz, then fusermount -uz, then umount -l.
 */
import { execFile } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** A mounted filesystem from mountinfo. */
export interface MountEntry {
  mountPoint: string;
  fsType: string;
  source: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** Parses /proc/self/mountinfo text. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const sep = line.indexOf(" - ");
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(" ");
    const right = line.slice(sep + 3).split(" ");
    const mountPoint = left[4];
    const fsType = right[0];
    if (mountPoint === undefined || fsType === undefined) continue;
    entries.push({ mountPoint: unescapeField(mountPoint), fsType, source: unescapeField(right[1] ?? "") });
  }
  return entries;
}

/**
 * `path` absolute with its parent's symlinks resolved, as mountinfo names mount points; the
 * last component is never touched (it may be a dead FUSE mount, answering ENOTCONN).
 */
function mountInfoPath(path: string): string {
  const absolute = resolve(path);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}

/**
 * The mounts currently at `mountPoint`, of any type (the last one is on top). mountinfo is read
 * synchronously: the kernel answers it from memory, and a new computer's start (host and daemon)
 * asks it several times, where each hop through Node's thread pool cost 5–20 ms under load.
 */
export async function mountsAt(mountPoint: string): Promise<MountEntry[]> {
  const target = mountInfoPath(mountPoint);
  const text = readFileSync("/proc/self/mountinfo", "utf8");
  return parseMountInfo(text).filter((m) => m.mountPoint === target);
}

/** The FUSE mounts currently at `mountPoint` (the last one is on top). */
export async function fuseMountsAt(mountPoint: string): Promise<MountEntry[]> {
  return (await mountsAt(mountPoint)).filter((m) => m.fsType.startsWith("fuse"));
}

function run(command: string, args: string[]): Promise<boolean> {
  return new Promise((done) => {
    execFile(command, args, { cwd: "/" }, (err) => done(!err));
  });
}

/** Lazily unmounts whatever FUSE filesystem sits at `mountPoint`. Returns true if one was removed. */
export async function lazyUnmount(mountPoint: string): Promise<boolean> {
  const target = resolve(mountPoint);
  for (const [command, args] of [
    ["fusermount3", ["-uz", target]],
    ["fusermount", ["-uz", target]],
    ["umount", ["-l", target]],
  ] as const) {
    if (await run(command, [...args])) return true;
  }
  return false;
}

/**
 * Clears FUSE mounts left at `mountPoint` by a daemon that is gone. Call before
 * mounting. Returns how many were removed; throws if one could not be.
 */
export async function clearStaleMount(mountPoint: string): Promise<number> {
  let removed = 0;
  for (
    let stacked = await fuseMountsAt(mountPoint);
    stacked.length > 0;
    stacked = await fuseMountsAt(mountPoint)
  ) {
    if (!(await lazyUnmount(mountPoint))) {
      throw new Error(`cannot unmount the stale FUSE mount at ${mountPoint}`);
    }
    removed++;
    if (removed > 16) throw new Error(`FUSE mounts at ${mountPoint} keep coming back`);
  }
  return removed;
}
