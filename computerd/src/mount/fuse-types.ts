/**
 * What both FUSE backends share, owned by neither: the kernel-side tuning of a mount, the
 * live mount the selector (backend.ts) holds and operation counters (the S_IFMT bits are the
 * vfs's, @computer/vfs/mode-bits). fuse3 (the default) and fuse (libfuse 2, the fallback)
 * both import them from here.
 */
import type { OwnerMap } from "./owner-map.ts";

/** Counts of FUSE operations by name. */
export type OpCounters = Record<string, number>;

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
