/**
 * The "fuse3" mount backend: serves a LocalFs through computerd's own libfuse3
 * low-level addon (native/fuse3.c): nanosecond times and UTIME_NOW/UTIME_OMIT,
 * the caller's uid/gid, one kernel inode per vfs inode (hard links share
 * attributes), 1 MiB requests, and kernel invalidation by node id for any depth.
 * FuseTuning and FuseMount are what the selector (backend.ts) passes and holds.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { isFsError } from "@computer/vfs";
import { DirectWrites, kernelKeepsDirectWritesCoherent, type StorePages } from "./direct-writes.ts";
import type { ErrorLogger } from "./errno.ts";
import { SETID_BITS } from "./fuse3-kill-priv.ts";
import { fuse3Unavailable, loadFuse3 } from "./fuse3-native.ts";
import { CAPABILITY_XATTR, fuse3Listener, type KernelHooks } from "./fuse3-ops.ts";
import { turnOnWakeHere, type WakeHere } from "./kernel-wake-here.ts";
import type { LocalFs } from "./local-fs.ts";
import { splitParent } from "./meta-cache.ts";
import type { OwnerMap } from "./owner-map.ts";
import { clearStaleMount, lazyUnmount } from "./stale.ts";

/** Kernel-side caching and access of a FUSE mount. */
export interface FuseTuning {
  /**
   * Seconds the kernel trusts a name lookup (default 60): names change only through the
   * kernel's own requests or remote changes, which `invalidateKernel` notifies exactly.
   */
  entryTimeout: number;
  /**
   * Seconds the kernel trusts attributes (default 60): it drops them itself after each change it
   * sends, and the daemon notifies the changes it makes on its own (a store that changed
   * st_blocks or dropped writes, the root's times when a file is hidden) and the remote ones.
   * Its getattr after a change it made is answered by the loop for inodes the daemon answered
   * last (fuse3-loop-attrs.ts).
   */
  attrTimeout: number;
  /** Seconds the kernel remembers a missing name (default 60, as names; creations through the mount update it). */
  negativeTimeout: number;
  /**
   * Page cache across opens. "auto" (default): kept while mtime and size are
   * unchanged, checked at every open (auto_cache with ac_attr_timeout=0), so a
   * change made behind the kernel's back is seen at the next open; the first read
   * after local writes goes to the daemon. "keep": always kept (kernel_cache):
   * fastest re-reads, but a remote change of an already cached file that keeps its
   * size is only seen after a hard invalidation.
   */
  pageCache: "auto" | "keep";
  /**
   * Write-only handles bypass the page cache, which gets their file's bytes after their release
   * (direct-writes.ts). Default: on where the kernel keeps that coherent (Linux >= 6.6).
   */
  directWrites?: boolean;
  /**
   * Turn the kernel's `fuse.wake_here` on before mounting, where the kernel has it and the
   * daemon may write it (kernel-wake-here.ts; a setting of the whole host). Default: on.
   */
  wakeHere?: boolean;
  /**
   * The FUSE loop answers a new file's create itself where JS's answer is certain, and JS makes
   * the file after (fuse3-loop-creates.ts). Default: on.
   */
  loopCreates?: boolean;
  /** Let users other than the daemon's use the mount (default: when running as root). */
  allowOther: boolean;
  /** libfuse debug output on stderr. */
  debug: boolean;
  /** Owner ids shown to the kernel instead of the vfs's (see owner-map.ts); default: as stored. */
  owners?: OwnerMap;
}

/** A live FUSE mount of a LocalFs. */
export interface FuseMount {
  readonly mountPoint: string;
  readonly counters: Readonly<Record<string, number>>;
  /** What became of the kernel's `fuse.wake_here` (kernel-wake-here.ts); undefined: not asked. */
  readonly wakeHere: WakeHere | undefined;
  /** Invalidates the kernel's names and attributes of changed paths (by node id, at any depth). */
  invalidateKernel(paths: readonly string[]): Promise<void>;
  /** Resolves once every write the loop answered early has been buffered (before the fence flushes). */
  writesHandled(): Promise<void>;
  /** The loop answers no create until the returned function is called (Mount.holdCreates). */
  holdCreates(): () => void;
  /** Unmounts (lazily: busy processes keep their open files until they close them). */
  unmount(): Promise<void>;
}

/** True when the addon is built and loads. */
export function fuse3Available(): boolean {
  return loadFuse3() !== undefined;
}

/** The -o string for fuse_session_new (mount options; timeouts go with each reply). */
export function fuse3OptionString(tuning: Pick<FuseTuning, "allowOther" | "debug">): string {
  const options = ["fsname=computer", "subtype=computerd", "default_permissions"];
  if (tuning.allowOther) options.push("allow_other");
  if (tuning.debug) options.push("debug");
  return options.join(",");
}

/** The kernel's page size (x86-64, arm64 with 4 KiB pages). */
const PAGE = 4096;
/** The counters of requests the loop answered itself, in the order of the addon's loopAnswers. */
const LOOP_COUNTERS = [
  "getxattr (loop)",
  "flush (loop)",
  "getattr (loop)",
  "write (loop)",
  "lookup (loop)",
  "opendir (loop)",
  "open (loop)",
  "create (loop)",
  "unlink (loop)",
  "mkdir (loop)",
  "link (loop)",
  "read (loop)",
  "setattr (loop)",
];

/** How often unmount wakes the FUSE loop until it has ended. */
const WAKE_RETRY_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Kernel readahead of the mount (KiB): the default 128 KiB would split every read into 128 KiB requests. */
const READ_AHEAD_KB = 1024;

/**
 * Raises the readahead of the mount's backing device (root only; best effort). The
 * device comes from mountinfo, not from stat(), which would ask this very daemon.
 */
function raiseReadahead(mountPoint: string): void {
  const target = resolve(mountPoint);
  // Synchronously, as mountsAt (stale.ts): /proc and /sys answer from memory.
  const lines = readFileSync("/proc/self/mountinfo", "utf8").split("\n");
  const line = lines.findLast((l) => l.split(" ")[4] === target && l.includes(" - fuse"));
  const device = line?.split(" ")[2];
  if (device === undefined) return;
  try {
    writeFileSync(`/sys/class/bdi/${device}/read_ahead_kb`, String(READ_AHEAD_KB));
  } catch {
    // Best effort (not root, a read-only /sys).
  }
}

/** Mounts `fs` at `mountPoint` with the FUSE 3 addon (throws when it is not built). */
export async function mountFuse3(
  fs: LocalFs,
  mountPoint: string,
  log: ErrorLogger,
  tuning: Partial<FuseTuning> = {},
): Promise<FuseMount> {
  const addon = loadFuse3();
  if (!addon) throw new Error(`the fuse3 mount backend cannot start: ${fuse3Unavailable()}`);
  const settings = {
    entryTimeout: 60,
    attrTimeout: 60,
    negativeTimeout: 60,
    pageCache: "auto" as const,
    allowOther: process.getuid?.() === 0,
    debug: false,
    ...tuning,
  };
  await clearStaleMount(mountPoint);
  mkdirSync(mountPoint, { recursive: true });
  const wakeHere = settings.wakeHere === false ? undefined : await turnOnWakeHere();
  const counters: Record<string, number> = {};
  let exited: () => void = () => {};
  const exit = new Promise<void>((resolve) => {
    exited = resolve;
  });
  // Notifications in flight: unmount waits for them while the loop still answers requests
  // (a notification can wait on a directory lock held by a request not yet answered).
  const notifying = new Set<Promise<unknown>>();
  const track = (notification: Promise<number>) => {
    notifying.add(notification);
    void notification.finally(() => notifying.delete(notification));
    return notification;
  };
  // Set once the session exists: the listener is built before it.
  let storeInto: StorePages = async () => 0;
  let cancelStores = () => {};
  const directs = new DirectWrites(
    settings.directWrites ?? kernelKeepsDirectWritesCoherent(),
    (ino, offset, chunks) => storeInto(ino, offset, chunks),
    () => cancelStores(),
  );
  let kernel: Omit<Required<KernelHooks>, "directWrites"> = {
    attributesChanged: () => undefined,
    capabilityStored: () => {},
    setidStored: () => {},
    dropFirstPage: async () => false,
    cacheAttrs: () => {},
    clearAttrs: () => {},
    dropAttr: () => {},
    continueWrites: () => {},
    pagesSeen: () => {},
    holdNames: () => {},
    holdsNames: () => false,
    addName: () => {},
    dropNames: () => {},
    clearNames: () => {},
    putEntry: () => {},
    dropEntry: () => {},
    clearEntries: () => {},
    setLoopCreates: () => {},
    grantInodes: () => {},
    inodesLeft: () => 0,
  };
  const { listener, nodes, loopCreates, clearLoopAttributes, answeredWritesBuffered } = fuse3Listener(
    addon,
    fs,
    log,
    counters,
    settings,
    () => exited(),
    {
      attributesChanged: (ino) => kernel.attributesChanged(ino),
      capabilityStored: () => kernel.capabilityStored(),
      setidStored: () => kernel.setidStored(),
      dropFirstPage: (ino) => kernel.dropFirstPage(ino),
      cacheAttrs: (attrs, count, timeout) => kernel.cacheAttrs(attrs, count, timeout),
      clearAttrs: () => kernel.clearAttrs(),
      dropAttr: (ino) => kernel.dropAttr(ino),
      continueWrites: (ino, fh, next) => kernel.continueWrites(ino, fh, next),
      pagesSeen: (ino, seen) => kernel.pagesSeen(ino, seen),
      holdNames: (ino, names, timeout) => kernel.holdNames(ino, names, timeout),
      holdsNames: (ino) => kernel.holdsNames(ino),
      addName: (ino, name) => kernel.addName(ino, name),
      dropNames: (ino) => kernel.dropNames(ino),
      clearNames: () => kernel.clearNames(),
      putEntry: (parent, name, ino, timeout) => kernel.putEntry(parent, name, ino, timeout),
      dropEntry: (parent, name) => kernel.dropEntry(parent, name),
      clearEntries: () => kernel.clearEntries(),
      setLoopCreates: (enabled, ids, direct, entryTimeout, attrTimeout) =>
        kernel.setLoopCreates(enabled, ids, direct, entryTimeout, attrTimeout),
      grantInodes: (first, count) => kernel.grantInodes(first, count),
      inodesLeft: () => kernel.inodesLeft(),
      directWrites: directs,
    },
  );
  const session = addon.mount(mountPoint, fuse3OptionString(settings), listener);
  let mounted = true;
  kernel = {
    attributesChanged: (ino) => (mounted ? track(addon.notifyInvalRange(session, ino, -1, 0)) : undefined),
    dropFirstPage: async (ino) =>
      mounted && (await track(addon.notifyInvalRange(session, ino, 0, PAGE))) === 0,
    capabilityStored: () => addon.setNoCapabilities(session, false),
    setidStored: () => addon.setNoSetid(session, false),
    cacheAttrs: (attrs, count, timeout) => addon.cacheAttrs(session, attrs, count, timeout),
    clearAttrs: () => addon.clearAttrs(session),
    dropAttr: (ino) => addon.dropAttr(session, ino),
    continueWrites: (ino, fh, next) => addon.armWriteRun(session, ino, fh, next),
    pagesSeen: (ino, seen) => addon.setPagesSeen(session, ino, seen?.mtimeMs ?? Number.NaN, seen?.size ?? 0),
    holdNames: (ino, names, timeout) => addon.holdNames(session, ino, names, timeout),
    holdsNames: (ino) => addon.holdsNames(session, ino),
    addName: (ino, name) => addon.addName(session, ino, name),
    dropNames: (ino) => addon.dropNames(session, ino),
    clearNames: () => addon.clearNames(session),
    putEntry: (parent, name, ino, timeout) => addon.putEntry(session, parent, name, ino, timeout),
    dropEntry: (parent, name) => addon.dropEntry(session, parent, name),
    clearEntries: () => addon.clearEntries(session),
    setLoopCreates: (enabled, ids, direct, entryTimeout, attrTimeout) =>
      addon.setLoopCreates(session, enabled, ids.lo, ids.hi, direct, entryTimeout, attrTimeout),
    grantInodes: (first, count) => addon.grantInodes(session, first, count),
    inodesLeft: () => addon.inodesLeft(session),
  };
  storeInto = (ino, offset, chunks) =>
    mounted ? track(addon.notifyStore(session, ino, offset, chunks)) : Promise.resolve(0);
  cancelStores = () => addon.cancelStores(session);
  // The loop answers the capability probes while no file has one (checked again after remote changes).
  const checkCapabilities = () => addon.setNoCapabilities(session, !fs.vfs.xattrInUse(CAPABILITY_XATTR));
  checkCapabilities();
  // Writes that kill setuid/setgid need the listener only once a file has either: checked at
  // mount; a local chmod, create or mknod with them and a remote change that brings one turn it off.
  addon.setNoSetid(session, !fs.vfs.setidInUse());
  // Closes of handles nothing was written through reach JS only while it holds something to store or report.
  fs.files.closeWork.listen((pending) => addon.setFlushWanted(session, pending));
  // Whole-page writes are answered by the loop, within room the write-back sets aside.
  if (settings.loopCreates !== false) loopCreates.start();
  fs.files.useEarlyWrites({
    grant: (bytes, fileSizeMax) => addon.grantWrites(session, bytes, fileSizeMax),
    revoke: () => addon.revokeWrites(session),
  });
  // What the loop answered without JS, in the order loopAnswers counts it.
  for (const [i, name] of LOOP_COUNTERS.entries())
    Object.defineProperty(counters, name, { enumerable: true, get: () => addon.loopAnswers(session)[i] });
  raiseReadahead(mountPoint);
  return {
    mountPoint,
    counters,
    wakeHere,
    async invalidateKernel(paths) {
      if (!mounted) return;
      // After the bytes on their way into the kernel's page cache (stopped at their next chunk), or
      // it would keep them over the change.
      cancelStores();
      await directs.stored();
      // Remote changes: no attributes the loop answers with may outlive them (LocalFs's
      // invalidate cleared them already; this says so where it matters), and a file may have
      // chunks still at the Durable Object now, which a run must not write over unseen.
      clearLoopAttributes();
      addon.disarmWriteRuns(session);
      // A pushed path below a directory that went away or became a file (rm -r, a swap) names
      // nothing now: the invalidation of that directory's own name drops its cached subtree.
      const current = (path: string) => {
        try {
          return fs.lookup(path);
        } catch (err) {
          if (isFsError(err)) return undefined;
          throw err;
        }
      };
      const pending: Promise<number>[] = [];
      // Each changed path's inode, and its directory's: a name added there changed the
      // directory's times and link count and its listing (the kernel drops those itself only
      // for a name it had looked up).
      const inodes = new Set<number>();
      for (const path of paths) {
        if (path === "/") continue;
        const { parent, name } = splitParent(path);
        const dir = current(parent);
        if (dir && nodes.has(dir.ino)) {
          pending.push(track(addon.notifyInvalEntry(session, dir.ino, name)));
          inodes.add(dir.ino);
        }
        const stat = current(path);
        if (stat?.type === "file" && stat.mode & SETID_BITS) addon.setNoSetid(session, false);
        if (stat && nodes.has(stat.ino)) inodes.add(stat.ino);
      }
      for (const ino of inodes) pending.push(track(addon.notifyInvalInode(session, ino)));
      await Promise.all(pending);
      checkCapabilities();
    },
    holdCreates: () => loopCreates.hold(),
    async writesHandled() {
      addon.flushWriteRun(session);
      // They (and the creates the loop answered) are queued for this thread: each turn of the
      // event loop delivers some.
      while ((addon.earlyWrites(session)[1] ?? 0) > 0) await new Promise((resolve) => setImmediate(resolve));
      await answeredWritesBuffered();
    },
    async unmount() {
      if (!mounted) return;
      mounted = false;
      addon.flushWriteRun(session);
      await Promise.allSettled([...notifying]);
      addon.unmount(session);
      // A process holding a file open keeps the detached mount alive: wake the loop until it ends.
      while (!(await Promise.race([exit.then(() => true), sleep(WAKE_RETRY_MS).then(() => false)])))
        addon.unmount(session);
      addon.destroy(session);
      await clearStaleMount(mountPoint).catch(() => lazyUnmount(mountPoint));
    },
  };
}
