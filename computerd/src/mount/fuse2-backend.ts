/**
 * The "fuse" mount backend (libfuse 2, the fallback): mounts a LocalFs with fuse-native, with the options
 * that make a Node FUSE daemon fast and correct here (use_ino for stable inode
 * numbers, big_writes/max_write, atomic_o_trunc, auto_cache so the page cache
 * survives opens while mtime/size are unchanged, kernel attribute/entry caching)
 * and kernel invalidation through the FUSE device.
 */
import { mkdir } from "node:fs/promises";
import type { ErrorLogger } from "./errno.ts";
import type { FuseMount, FuseTuning, OpCounters } from "./fuse-types.ts";
import { loadFuseNative, type NativeFuse } from "./fuse2-native.ts";
import { fuseOperations } from "./fuse2-ops.ts";
import { fuseDeviceFds, invalidateKernel } from "./kernel-notify.ts";
import type { LocalFs } from "./local-fs.ts";
import { clearStaleMount, lazyUnmount } from "./stale.ts";

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
