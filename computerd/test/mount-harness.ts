/**
 * Test support for the mount layer without a kernel mount: a LocalFs over a fresh mirror in
 * a temporary directory, a stand-in fuse3 addon whose every call fails the test, for
 * tests to override with the replies they record, and one that records the usual replies.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Vfs } from "@computer/vfs";
import { type Mirror, openMirror } from "../src/mirror/open-mirror.ts";
import type { LoopCreates } from "../src/mount/fuse3-loop-creates.ts";
import { type Fuse3Addon, OP, type RequestHandle, type RequestListener } from "../src/mount/fuse3-native.ts";
import type { NodeTable } from "../src/mount/fuse3-nodes.ts";
import { fuse3Listener, type KernelHooks } from "../src/mount/fuse3-ops.ts";
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
    knownHashes: mirror.hashes,
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
    replyDirPlus: unexpected,
    replyNone: unexpected,
    notifyInvalInode: unexpected,
    notifyInvalEntry: unexpected,
    notifyInvalRange: unexpected,
    notifyStore: unexpected,
    cancelStores: unexpected,
    setNoCapabilities: unexpected,
    setNoSetid: unexpected,
    killPriv: unexpected,
    loopAnswers: unexpected,
    setPagesSeen: unexpected,
    setFlushWanted: unexpected,
    cacheAttrs: unexpected,
    clearAttrs: unexpected,
    dropAttr: unexpected,
    armWriteRun: unexpected,
    disarmWriteRuns: unexpected,
    flushWriteRun: unexpected,
    grantWrites: unexpected,
    revokeWrites: unexpected,
    earlyWrites: unexpected,
    receiveBuffers: unexpected,
    holdNames: unexpected,
    holdsNames: unexpected,
    addName: unexpected,
    dropNames: unexpected,
    clearNames: unexpected,
    putEntry: unexpected,
    dropEntry: unexpected,
    clearEntries: unexpected,
    setLoopCreates: unexpected,
    grantInodes: unexpected,
    inodesLeft: unexpected,
  };
}

/**
 * The fuse3 request listener over `fs` answering through `addon` (and its node table), with
 * one-second kernel cache lifetimes, the "auto" page-cache policy, `owners` and `kernel`'s
 * hooks; errors and exit are ignored.
 */
export function testHandlers(
  addon: Fuse3Addon,
  fs: LocalFs,
  options: { owners?: OwnerMap; kernel?: KernelHooks } = {},
): ReturnType<typeof fuse3Listener> {
  const timeouts = {
    entryTimeout: 1,
    attrTimeout: 1,
    negativeTimeout: 1,
    pageCache: "auto" as const,
    owners: options.owners,
  };
  return fuse3Listener(
    addon,
    fs,
    () => {},
    {},
    timeouts,
    () => {},
    options.kernel,
  );
}

/** The tree the loop-table tests start from (an openTestHandlers `setup`): /d holding /d/f. */
export function fileInDir(vfs: Vfs): void {
  vfs.mkdir("/d");
  vfs.writeFile("/d/f", "x");
}

/** A fresh mirror, the fuse3 handlers over it recording their replies, and a Call into them. */
export interface TestHandlers extends TestLocalFs {
  replies: Reply[];
  nodes: NodeTable;
  /** The listener itself, for what the loop hands over without a request. */
  listener: RequestListener;
  /** The creates the loop answers (started by a test, as the backend does once mounted). */
  loopCreates: LoopCreates;
  call: Call;
}

/**
 * openTestLocalFs with `setup` made in the mirror first (the listener lists the root for
 * stale hidden files when it starts), then testHandlers over it answering through
 * `addon(replies)` (default: recordingAddon) with `kernel`'s hooks.
 */
export function openTestHandlers(
  prefix: string,
  options: {
    setup?: (vfs: Vfs) => void;
    addon?: (replies: Reply[]) => Fuse3Addon;
    kernel?: KernelHooks;
  } = {},
): TestHandlers {
  const local = openTestLocalFs(prefix);
  options.setup?.(local.mirror.vfs);
  const replies: Reply[] = [];
  const addon = options.addon?.(replies) ?? recordingAddon(replies);
  const { listener, nodes, loopCreates } = testHandlers(
    addon,
    local.fs,
    options.kernel ? { kernel: options.kernel } : {},
  );
  return { ...local, replies, nodes, listener, loopCreates, call: caller(listener, replies) };
}

/** testHandlers' listener alone. */
export function testListener(addon: Fuse3Addon, fs: LocalFs, owners?: OwnerMap): RequestListener {
  return testHandlers(addon, fs, owners ? { owners } : {}).listener;
}

/** One reply the handlers gave: its kind, the attributes (uid, gid, ino), the handle, the names or the errno. */
export interface Reply {
  kind: string;
  ino?: number;
  uid?: number;
  gid?: number;
  errno?: number;
  fh?: number;
  names?: string[];
  /** readdirplus: per entry, its inode and nlink as sent. */
  entries?: { ino: number; nlink: number }[];
}

/** A fuse3 addon that records errors, entries, creates, attributes, opens and listings in `replies`. */
export function recordingAddon(replies: Reply[]): Fuse3Addon {
  const attrs = (kind: string, attr: Float64Array, fh?: number): number => {
    replies.push({
      kind,
      ino: attr[0] ?? 0,
      uid: attr[3] ?? -1,
      gid: attr[4] ?? -1,
      ...(fh === undefined ? {} : { fh }),
    });
    return 0;
  };
  return {
    ...unexpectedAddon(),
    replyErr: (_req, errno) => {
      replies.push({ kind: "err", errno });
      return 0;
    },
    replyEntry: (_req, attr) => attrs("entry", attr),
    replyCreate: (_req, attr, _entry, _attr, fh) => attrs("create", attr, fh),
    replyAttr: (_req, attr) => attrs("attr", attr),
    replyOpen: (_req, fh) => {
      replies.push({ kind: "open", fh });
      return 0;
    },
    replyDir: (_req, _size, _offset, names) => {
      replies.push({ kind: "dir", names: [...names] });
      return 0;
    },
    replyDirPlus: (_req, _size, _first, names, attrs) => {
      const entries = names.map((_, i) => ({ ino: attrs[i * 14] ?? 0, nlink: attrs[i * 14 + 2] ?? 0 }));
      replies.push({ kind: "dirplus", names: [...names], entries });
      return names.length;
    },
  };
}

/** Sends one request as a caller to `listener` and answers the reply `replies` got for it. */
export type Call = (op: number, caller: { uid: number; gid: number }, ...args: (number | string)[]) => Reply;

/** A Call over `listener`, which answers into `replies` (a recordingAddon's). */
export function caller(listener: RequestListener, replies: Reply[]): Call {
  const req = {} as RequestHandle;
  return (op, who, ...args) => {
    // The loop answers a release and a releasedir itself and hands them over without a request
    // (native/fuse3.c).
    if (op === OP.release || op === OP.releasedir) {
      listener(op, null, who.uid, who.gid, 1, 0o022, ...args);
      return { kind: "none" };
    }
    const before = replies.length;
    listener(op, req, who.uid, who.gid, 1, 0o022, ...args);
    const reply = replies.at(-1);
    if (!reply || replies.length === before) throw new Error("no reply");
    return reply;
  };
}
