/**
 * The process's descriptors on /dev/fuse (the fuse3 addon opens one per mount): commands must
 * not inherit them, or a command could answer the kernel's FUSE requests itself.
 */
import { readdirSync, readlinkSync } from "node:fs";

/** File descriptors of this process that are open on /dev/fuse. */
export function fuseDeviceFds(): Set<number> {
  const fds = new Set<number>();
  for (const name of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${name}`) === "/dev/fuse") fds.add(Number(name));
    } catch {
      // The descriptor readdir itself used is gone by now.
    }
  }
  return fds;
}
