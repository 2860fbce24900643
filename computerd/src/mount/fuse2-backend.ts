/**
 * The "fuse" mount backend: mounts a LocalFs with fuse-native, with the options
 * that make a Node FUSE daemon fast and correct here (use_ino for stable inode
 * numbers, big_writes/max_write, atomic_o_trunc, auto_cache so the page cache
 * survives opens while mtime/size are unchanged, kernel attribute/entry caching)
 * and kernel invalidation through the FUSE device.
 */
import { mkdir } from "node:fs/promises";
import type { ErrorLogger } from "./errno.ts";
import { loadFuseNative, type NativeFuse } from "./fuse2-native.ts";
import { fuseOperations, type OpCounters } from "./fuse2-ops.ts";
import { fuseDeviceFds, invalidateKernel } from "./kernel-notify.ts";
import type { LocalFs } from "./local-fs.ts";
import type { OwnerMap } from "./owner-map.ts";
import { clearStaleMount, lazyUnmount } from "./stale.ts";

/** Kernel-side caching and access of a FUSE mount. */
export interface FuseTuning {
  /** Seconds the kernel trusts a name lookup (default 1). */
  entryTimeout: number;
  /** Seconds the kernel trusts attributes (default 1). */
  attrTimeout: number;
  /** Seconds the kernel remembers a missing name (default 1; creations through the mount update it). */
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
  readonly counters: OpCounters;
  /** Invalidates kernel caches for changed paths (see kernel-notify.ts for hard vs soft). */
  invalidateKernel(paths: readonly string[], hard: boolean): Promise<void>;
  /** Unmounts (lazily: busy processes keep their open files until they close them). */
  unmount(): Promise<void>;
}

/** The mount option string (fuse-native passes it as one "-o" argument, at most 1023 bytes). */
export function fuseOptionString(tuning: FuseTuning): string {
  const options = [
    "use_ino",
    "big_writes",
    "max_write=1048576",
    "atomic_o_trunc",
    ...(tuning.pageCache === "keep" ? ["kernel_cache"] : ["auto_cache", "ac_attr_timeout=0"]),
    `entry_timeout=${tuning.entryTimeout}`,
    `attr_timeout=${tuning.attrTimeout}`,
    `negative_timeout=${tuning.negativeTimeout}`,
    "default_permissions",
    "fsname=computer",
    "subtype=computerd",
  ];
  if (tuning.allowOther) options.push("allow_other");
  if (tuning.debug) options.push("debug");
  return `-o${options.join(",")}`;
}

/** Mounts `fs` at `mountPoint` (created if missing; a stale mount there is cleared first). */
export async function mountFuse(
  fs: LocalFs,
  mountPoint: string,
  log: ErrorLogger,
  tuning: Partial<FuseTuning> = {},
): Promise<FuseMount> {
  const settings: FuseTuning = {
    entryTimeout: 1,
    attrTimeout: 1,
    negativeTimeout: 1,
    pageCache: "auto",
    allowOther: process.getuid?.() === 0,
    debug: false,
    ...tuning,
  };
  const Fuse = loadFuseNative();
  await clearStaleMount(mountPoint);
  await mkdir(mountPoint, { recursive: true });
  const counters: OpCounters = {};
  const fuse: NativeFuse = new Fuse(mountPoint, fuseOperations(fs, log, counters, settings.owners), {
    timeout: false,
  });
  fuse._fuseOptions = () => fuseOptionString(settings);
  const before = fuseDeviceFds();
  await new Promise<void>((resolve, reject) => fuse.mount((err) => (err ? reject(err) : resolve())));
  const device = [...fuseDeviceFds()].find((fd) => !before.has(fd));
  if (device === undefined) log("no /dev/fuse descriptor found; kernel cache invalidation is off", undefined);
  let mounted = true;
  return {
    mountPoint,
    counters,
    async invalidateKernel(paths, hard) {
      if (device === undefined || !mounted) return;
      await invalidateKernel(device, paths, hard);
    },
    async unmount() {
      if (!mounted) return;
      mounted = false;
      await new Promise<void>((resolve) => {
        fuse.unmount((err) => {
          if (err) log(`fuse-native unmount of ${mountPoint} failed; unmounting lazily`, err);
          resolve();
        });
      });
      // fuse-native uses fusermount (fuse 2); make sure nothing is left on top.
      await clearStaleMount(mountPoint).catch(() => lazyUnmount(mountPoint));
    },
  };
}
