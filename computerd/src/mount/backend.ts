/**
 * The mount backend selector: what serves the mirror's LocalFs at a mount point.
 * - "fuse3" (the default): computerd's own libfuse3 low-level addon (native/fuse3.c,
 *   fuse3-backend.ts, fuse3-ops.ts): nanosecond times, the caller's uid/gid, one kernel inode
 *   per vfs inode, kernel invalidation by node id. Passes every conformance script.
 * - "none": the same LocalFs without a kernel mount, for tests and hosts without FUSE.
 * Either way the sync client gets the same hooks: flushAll (the fence), invalidate (changes
 * pushed from the Durable Object) and onChange.
 */
import type { Mirror } from "../mirror/open-mirror.ts";
import type { ErrorLogger } from "./errno.ts";
import type { FuseMount, FuseTuning } from "./fuse3-backend.ts";
import { loadFuse3 } from "./fuse3-native.ts";
import type { WakeHere } from "./kernel-wake-here.ts";
import { LocalFs, type LocalFsOptions } from "./local-fs.ts";
import { atimeWriter } from "./relatime.ts";

/** Which backend serves the mirror ("fuse3": computerd's own libfuse3 addon, see fuse3-backend.ts). */
export type MountBackend = "fuse3" | "none";

/** Options of openMount. */
export interface MountOptions {
  backend: MountBackend;
  mirror: Mirror;
  /** Required for "fuse3". */
  mountPoint?: string;
  log?: ErrorLogger;
  fuse?: Partial<FuseTuning>;
  localFs?: LocalFsOptions;
}

/** A served mirror. */
export interface Mount {
  readonly backend: MountBackend;
  readonly mountPoint: string | undefined;
  readonly fs: LocalFs;
  /** FUSE operations by name since mount (empty for "none"). */
  readonly counters: Readonly<Record<string, number>>;
  /** The kernel's `fuse.wake_here` as the fuse3 backend left it (kernel-wake-here.ts); undefined for "none". */
  readonly wakeHere: WakeHere | undefined;
  /** The fence: every write made through the mount is in the mirror (and committed) when this resolves. */
  flushAll(): Promise<void>;
  /**
   * The FUSE loop answers no create until the returned function is called, so a fence after
   * this call holds every create it answered (fuse3-loop-creates.ts): the sync client applies
   * the DO's changes only then, and no create of a name they bring can come between.
   */
  holdCreates(): () => void;
  /**
   * Paths the sync client changed in the mirror: drop local and kernel caches for them (the
   * kernel's by node id, names and attributes, at any depth; safe while commands run).
   */
  invalidate(paths: readonly string[]): Promise<void>;
  /**
   * Sets the mirror's quota (null: none) for every write from now on, including those the FUSE
   * loop answers without JS. Not committed: the caller commits.
   */
  setQuota(bytes: number | null): void;
  /** Called (at most once per commit) after local changes were committed to the mirror; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Flushes, stops serving, unmounts. The mirror stays open (its owner closes it). */
  unmount(): Promise<void>;
}

const defaultLog: ErrorLogger = (message, err) => console.error(`computerd: ${message}`, err ?? "");

/** Serves `options.mirror` with the chosen backend. */
export async function openMount(options: MountOptions): Promise<Mount> {
  const log = options.log ?? defaultLog;
  const { mirror } = options;
  // The fuse3 addon hashes pages where they are; WebCrypto (the default) copies each first.
  const digest = options.backend === "fuse3" ? loadFuse3()?.sha256 : undefined;
  const fs = new LocalFs(mirror.vfs, {
    log,
    commit: () => mirror.sql.commit(),
    storeAtime: atimeWriter(mirror),
    knownHashes: mirror.hashes,
    recentBlobs: mirror.recent,
    ...(digest ? { digest } : {}),
    ...options.localFs,
  });
  const listeners = new Set<() => void>();
  const stopCommits = mirror.sql.onCommit(() => {
    for (const listener of listeners) listener();
  });
  let fuse: FuseMount | undefined;
  if (options.backend === "fuse3") {
    if (!options.mountPoint) throw new Error("the fuse3 backend needs a mount point");
    const { mountFuse3 } = await import("./fuse3-backend.ts");
    fuse = await mountFuse3(fs, options.mountPoint, log, options.fuse);
  }
  let open = true;
  return {
    backend: options.backend,
    mountPoint: fuse?.mountPoint,
    fs,
    counters: fuse?.counters ?? {},
    wakeHere: fuse?.wakeHere,
    async flushAll() {
      // Writes the FUSE loop answered early are buffered first (they may still be on their way).
      await fuse?.writesHandled();
      // Completed pages are hashed on the thread pool first; the stores then skip hashing.
      await fs.files.hashAhead();
      fs.flushAll();
    },
    holdCreates: () => fuse?.holdCreates() ?? (() => {}),
    setQuota: (bytes) => fs.files.room.setQuota(bytes),
    async invalidate(paths) {
      fs.invalidate(paths);
      await fuse?.invalidateKernel(paths);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async unmount() {
      if (!open) return;
      open = false;
      // Data that cannot be stored (ENOSPC: its writer already got the error from close or
      // fsync) must not keep the mount alive: it is logged and dropped, as a kernel drops
      // failed write-back at unmount.
      const flush = () => {
        try {
          fs.flushAll();
        } catch (err) {
          log("unmount: unflushed data dropped", err);
        }
      };
      flush();
      await fuse?.unmount();
      // Requests that raced the unmount may have written more.
      flush();
      fs.stop();
      stopCommits();
    },
  };
}
