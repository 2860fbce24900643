/**
 * Kernel cache invalidation without libfuse's help. fuse-native (libfuse 2.9,
 * high-level API) exposes no notify calls, but notifications are plain messages
 * on the /dev/fuse descriptor, so we write them ourselves:
 * FUSE_NOTIFY_INVAL_ENTRY for names directly under the root (node id 1, the only
 * node id the high-level API lets us know) and FUSE_NOTIFY_INVAL_INODE for the
 * root itself. A deeper changed path invalidates its top-level ancestor: "hard"
 * drops that whole dentry subtree (exact, but a process whose cwd is inside sees
 * getcwd() fail), "soft" only expires the top-level entry (FUSE_EXPIRE_ONLY, safe
 * while commands run; deeper cached attributes age out within attr_timeout).
 * Writes go through the libuv pool: the kernel may wait on a request the JS
 * thread still has to answer, so a blocking write could deadlock.
 */
import { readdirSync, readlinkSync, write } from "node:fs";

const FUSE_NOTIFY_INVAL_INODE = 2;
const FUSE_NOTIFY_INVAL_ENTRY = 3;
const FUSE_EXPIRE_ONLY = 1;
const ROOT_NODE_ID = 1n;
const OUT_HEADER = 16;

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

function header(length: number, code: number): Buffer {
  const buf = Buffer.alloc(length);
  buf.writeUInt32LE(length, 0);
  buf.writeInt32LE(code, 4);
  buf.writeBigUInt64LE(0n, 8);
  return buf;
}

/** FUSE_NOTIFY_INVAL_ENTRY for `name` under the root. */
export function invalEntryMessage(name: string, expireOnly: boolean): Buffer {
  const encoded = Buffer.from(name);
  const buf = header(OUT_HEADER + 16 + encoded.length + 1, FUSE_NOTIFY_INVAL_ENTRY);
  buf.writeBigUInt64LE(ROOT_NODE_ID, 16);
  buf.writeUInt32LE(encoded.length, 24);
  buf.writeUInt32LE(expireOnly ? FUSE_EXPIRE_ONLY : 0, 28);
  encoded.copy(buf, 32);
  return buf;
}

/** FUSE_NOTIFY_INVAL_INODE for the root: its attributes (and cached listing). */
export function invalRootMessage(): Buffer {
  const buf = header(OUT_HEADER + 24, FUSE_NOTIFY_INVAL_INODE);
  buf.writeBigUInt64LE(ROOT_NODE_ID, 16);
  buf.writeBigInt64LE(0n, 24);
  buf.writeBigInt64LE(0n, 32);
  return buf;
}

/** The top-level names a set of changed paths touch, and whether the root itself changed. */
export function topLevelNames(paths: readonly string[]): { names: Set<string>; root: boolean } {
  const names = new Set<string>();
  let root = false;
  for (const path of paths) {
    const rest = path.replace(/^\/+/, "");
    if (rest === "") {
      root = true;
      continue;
    }
    const slash = rest.indexOf("/");
    if (slash < 0) root = true;
    names.add(slash < 0 ? rest : rest.slice(0, slash));
  }
  return { names, root };
}

function send(fd: number, message: Buffer): Promise<number> {
  return new Promise((resolve) => {
    write(fd, message, (err) => {
      // ENOENT: the kernel had nothing cached for that name, which is fine.
      resolve(err ? -Math.abs((err as NodeJS.ErrnoException).errno ?? 5) : 0);
    });
  });
}

/** Sends invalidations for `paths` on the FUSE device `fd`. Resolves when the kernel processed them. */
export async function invalidateKernel(fd: number, paths: readonly string[], hard: boolean): Promise<void> {
  const { names, root } = topLevelNames(paths);
  const pending: Promise<number>[] = [];
  if (root) pending.push(send(fd, invalRootMessage()));
  for (const name of names) pending.push(send(fd, invalEntryMessage(name, !hard)));
  await Promise.all(pending);
}
