/**
 * Test support for the mount layer without a kernel mount: a LocalFs over a fresh mirror in
 * a temporary directory, and a stand-in fuse3 addon whose every call fails the test, for
 * tests to override with the replies they record.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Mirror, openMirror } from "../src/mirror/open-mirror.ts";
import type { Fuse3Addon, RequestListener } from "../src/mount/fuse3-native.ts";
import { fuse3Listener } from "../src/mount/fuse3-ops.ts";
import { LocalFs, type LocalFsOptions } from "../src/mount/local-fs.ts";
import type { OwnerMap } from "../src/mount/owner-map.ts";

/** A LocalFs over a fresh mirror, and what is needed to look past it or clean it up. */
export interface TestLocalFs {
  /** The mirror's state directory. */
  readonly dir: string;
  readonly mirror: Mirror;
  readonly fs: LocalFs;
  /** Stops the write-back, closes the mirror and removes `dir`. */
  close(): void;
}

/**
 * Opens an empty mirror in a new temporary directory named after `prefix` and a LocalFs over
 * it that commits to the mirror and logs nothing; `options(mirror)` adds LocalFs options
 * that need the mirror (an atime writer over its SQL, a test clock).
 */
export function openTestLocalFs(
  prefix: string,
  options: (mirror: Mirror) => LocalFsOptions = () => ({}),
): TestLocalFs {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const mirror = openMirror(dir);
  const fs = new LocalFs(mirror.vfs, {
    commit: () => mirror.sql.commit(),
    log: () => {},
    ...options(mirror),
  });
  return {
    dir,
    mirror,
    fs,
    close() {
      fs.stop();
      mirror.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fuse3 addon whose every method throws: a test spreads it and overrides the replies it
 * expects, so a request answered some other way fails loudly instead of hanging.
 */
export function unexpectedAddon(): Fuse3Addon {
  const unexpected = () => {
    throw new Error("not expected in these tests");
  };
  return {
    mount: unexpected,
    unmount: unexpected,
    destroy: unexpected,
    replyErr: unexpected,
    replyEntry: unexpected,
    replyCreate: unexpected,
    replyAttr: unexpected,
    replyOpen: unexpected,
    replyBuf: unexpected,
    replyWrite: unexpected,
    replyReadlink: unexpected,
    replyStatfs: unexpected,
    replyXattrSize: unexpected,
    replyDir: unexpected,
    replyNone: unexpected,
    notifyInvalInode: unexpected,
    notifyInvalEntry: unexpected,
  };
}

/**
 * The fuse3 request listener over `fs` answering through `addon`, with one-second kernel
 * cache lifetimes, the "auto" page-cache policy and `owners`; errors and exit are ignored.
 */
export function testListener(addon: Fuse3Addon, fs: LocalFs, owners?: OwnerMap): RequestListener {
  const timeouts = {
    entryTimeout: 1,
    attrTimeout: 1,
    negativeTimeout: 1,
    pageCache: "auto" as const,
    owners,
  };
  return fuse3Listener(
    addon,
    fs,
    () => {},
    {},
    timeouts,
    () => {},
  ).listener;
}
