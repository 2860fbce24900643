/** Tuning of the write-back layer (write-back.ts) and its defaults. */
import type { KnownHashes } from "../mirror/known-hashes.ts";
import type { RecentBlobs } from "../mirror/recent-blobs.ts";
import type { Digest } from "./dirty-file.ts";

export interface WriteBackOptions {
  /** Above this many dirty bytes in total, the file being written is flushed (default 256 MiB). */
  maxDirtyBytes: number;
  /** Files left dirty by their last close are stored together this long after it (default 20 ms). */
  idleFlushMs: number;
  /** Completed pages of open files are stored once writes pause this long (default 5 ms). */
  quietMs: number;
  /**
   * ... or, while writes go on, once this many wait (default: never, only on a pause). A synced
   * workspace sets it: the uploader sends a file still being written only as far as it is
   * stored, so pages held until the command ended went to the Durable Object in its fence.
   */
  streamPages: number;
  /** Memory for clean chunks (default 64 MiB). */
  chunkCacheBytes: number;
  /** Where failures of background flushes are reported. */
  log: (message: string, err: unknown) => void;
  /**
   * The mirror's KnownHashes: with it, whole pages are hashed on the thread pool before the
   * background stores and the fence, and the vfs uses those hashes instead of hashing again.
   */
  knownHashes?: KnownHashes;
  /** Where pages stored with a hash computed ahead are kept for the upload (the mirror's). */
  recentBlobs?: RecentBlobs;
  /** How those pages are hashed (default: WebCrypto on the thread pool; the fuse3 addon reads them in place). */
  digest?: Digest;
}

export const WRITE_BACK_DEFAULTS: WriteBackOptions = {
  maxDirtyBytes: 256 << 20,
  idleFlushMs: 20,
  quietMs: 5,
  streamPages: Number.POSITIVE_INFINITY,
  chunkCacheBytes: 64 << 20,
  log: (message, err) => console.error(`computerd: ${message}`, err),
};
