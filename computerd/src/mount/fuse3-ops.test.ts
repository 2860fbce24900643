/**
 * The fuse3 request handlers against a recording stand-in for the addon: the owner map on
 * attribute replies, chown and new nodes, and renameat2 flags (NOREPLACE → EEXIST, EXCHANGE
 * swaps, WHITEOUT → EINVAL with nothing changed).
 */
import { join } from "node:path";
import { openNodeVfs } from "@computer/vfs/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  caller,
  openTestLocalFs,
  type Reply,
  recordingAddon,
  testListener,
} from "../../test/mount-harness.ts";
import { MIRROR_FILE, type Mirror } from "../mirror/open-mirror.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";
import type { LocalFs } from "./local-fs.ts";
import { type OwnerMap, swapOwners } from "./owner-map.ts";

const SANDBOX = { uid: 65534, gid: 65534 };
const ROOT = { uid: 0, gid: 0 };
const SET_UID = 1 << 1;
const SET_GID = 1 << 2;
const RENAME_NOREPLACE = 1;
const RENAME_EXCHANGE = 2;
const RENAME_WHITEOUT = 4;

let dir: string;
let mirror: Mirror;
let fs: LocalFs;
let close: () => void;
let replies: Reply[];

beforeEach(() => {
  ({ dir, mirror, fs, close } = openTestLocalFs("computerd-fuse3-ops-"));
  replies = [];
});

afterEach(() => close());

/** A listener over `fs`; `call` sends one request as `caller` and returns its reply. */
function handlers(owners?: OwnerMap) {
  return caller(testListener(recordingAddon(replies), fs, owners), replies);
}

/** Setattr arguments: ino, flags, mode, uid, gid, size, atime s/ns, mtime s/ns, fh. */
function chownArgs(ino: number, uid: number, gid: number): number[] {
  return [ino, (uid >= 0 ? SET_UID : 0) | (gid >= 0 ? SET_GID : 0), 0, uid, gid, 0, 0, 0, 0, 0, -1];
}

describe("fuse3 handlers with the owner map (vfs 0:0 ⇄ sandbox user 65534)", () => {
  const owners = swapOwners(ROOT, SANDBOX);

  it("shows the vfs owner as the sandbox user in lookup, getattr and setattr replies", () => {
    mirror.vfs.writeFile("/f", "x");
    mirror.vfs.chown("/f", 1000, 1000, false);
    mirror.vfs.writeFile("/root-owned", "y");
    const call = handlers(owners);
    expect(call(OP.lookup, SANDBOX, ROOT_INO, "root-owned")).toMatchObject({ kind: "entry", ...SANDBOX });
    const rootOwned = mirror.vfs.stat("/root-owned").ino;
    expect(call(OP.getattr, SANDBOX, rootOwned, -1)).toMatchObject({ kind: "attr", ...SANDBOX });
    // Other owners pass through unchanged.
    expect(call(OP.lookup, SANDBOX, ROOT_INO, "f")).toMatchObject({ uid: 1000, gid: 1000 });
    expect(call(OP.getattr, SANDBOX, ROOT_INO, -1)).toMatchObject({ kind: "attr", ...SANDBOX });
  });

  it("stores a node created by the sandbox user as the vfs owner, and shows it as the caller", () => {
    const call = handlers(owners);
    expect(call(OP.create, SANDBOX, ROOT_INO, 0o644, 0o101, "made")).toMatchObject({
      kind: "create",
      ...SANDBOX,
    });
    expect(call(OP.mkdir, SANDBOX, ROOT_INO, 0o755, "dir")).toMatchObject({ kind: "entry", ...SANDBOX });
    expect(call(OP.symlink, SANDBOX, ROOT_INO, "sym", "made")).toMatchObject({ kind: "entry", ...SANDBOX });
    expect(call(OP.mknod, SANDBOX, ROOT_INO, 0o010644, 0, "fifo")).toMatchObject({
      kind: "entry",
      ...SANDBOX,
    });
    fs.flushAll();
    for (const path of ["/made", "/dir", "/sym", "/fifo"]) {
      const { uid, gid } = mirror.vfs.lstat(path);
      expect({ path, uid, gid }).toEqual({ path, ...ROOT });
    }
    // A kernel root caller is the other side of the swap.
    call(OP.mkdir, ROOT, ROOT_INO, 0o755, "by-root");
    fs.flushAll();
    expect(mirror.vfs.stat("/by-root")).toMatchObject(SANDBOX);
    // Any other caller is stored as is.
    call(OP.mkdir, { uid: 1000, gid: 1001 }, ROOT_INO, 0o755, "by-user");
    fs.flushAll();
    expect(mirror.vfs.stat("/by-user")).toMatchObject({ uid: 1000, gid: 1001 });
  });

  it("maps chown ids from the kernel to the vfs (-1 keeps an id)", () => {
    mirror.vfs.writeFile("/f", "x");
    mirror.vfs.chown("/f", 1000, 1000, false);
    const ino = mirror.vfs.stat("/f").ino;
    const call = handlers(owners);
    call(OP.lookup, ROOT, ROOT_INO, "f");
    expect(call(OP.setattr, ROOT, ...chownArgs(ino, SANDBOX.uid, -1))).toMatchObject({
      kind: "attr",
      uid: SANDBOX.uid,
      gid: 1000,
    });
    fs.flushAll();
    expect(mirror.vfs.stat("/f")).toMatchObject({ uid: 0, gid: 1000 });
    expect(call(OP.setattr, ROOT, ...chownArgs(ino, 0, 0))).toMatchObject({ kind: "attr", ...ROOT });
    fs.flushAll();
    expect(mirror.vfs.stat("/f")).toMatchObject(SANDBOX);
  });

  it("gives a setgid directory's group (a vfs id) to new nodes, shown through the map", () => {
    mirror.vfs.mkdir("/shared");
    mirror.vfs.chown("/shared", 1000, 0, false);
    mirror.vfs.chmod("/shared", 0o2775);
    const call = handlers(owners);
    const shared = call(OP.lookup, SANDBOX, ROOT_INO, "shared").ino ?? 0;
    expect(call(OP.mkdir, { uid: 1000, gid: 1000 }, shared, 0o755, "sub")).toMatchObject({
      uid: 1000,
      gid: SANDBOX.gid,
    });
    fs.flushAll();
    expect(mirror.vfs.stat("/shared/sub")).toMatchObject({ uid: 1000, gid: 0 });
  });
});

describe("fuse3 handlers without an owner map", () => {
  it("store and show the caller's ids as they are", () => {
    const call = handlers();
    expect(call(OP.create, SANDBOX, ROOT_INO, 0o644, 0o101, "made")).toMatchObject(SANDBOX);
    fs.flushAll();
    expect(mirror.vfs.stat("/made")).toMatchObject(SANDBOX);
    expect(call(OP.lookup, ROOT, ROOT_INO, "made")).toMatchObject(SANDBOX);
  });
});

describe("fuse3 fsyncdir", () => {
  it("commits the directory's new entries before it answers", () => {
    const call = handlers();
    call(OP.mkdir, ROOT, ROOT_INO, 0o755, "dir");
    // A second connection sees only what was committed.
    const other = openNodeVfs(join(dir, MIRROR_FILE));
    expect(other.exists("/dir")).toBe(false);
    expect(call(OP.fsyncdir, ROOT, ROOT_INO, 1, 0)).toEqual({ kind: "err", errno: 0 });
    expect(other.exists("/dir")).toBe(true);
  });
});

describe("fuse3 rename flags", () => {
  function twoFiles() {
    mirror.vfs.writeFile("/a", "A");
    mirror.vfs.writeFile("/b", "B");
    const call = handlers();
    call(OP.lookup, ROOT, ROOT_INO, "a");
    call(OP.lookup, ROOT, ROOT_INO, "b");
    return call;
  }
  const contents = () => [mirror.vfs.readText("/a"), mirror.vfs.readText("/b")];

  it("RENAME_NOREPLACE onto an existing name is EEXIST and changes nothing", () => {
    const call = twoFiles();
    expect(call(OP.rename, ROOT, ROOT_INO, ROOT_INO, RENAME_NOREPLACE, "a", "b")).toEqual({
      kind: "err",
      errno: 17,
    });
    fs.flushAll();
    expect(contents()).toEqual(["A", "B"]);
  });

  it("RENAME_NOREPLACE onto a free name renames", () => {
    const call = twoFiles();
    expect(call(OP.rename, ROOT, ROOT_INO, ROOT_INO, RENAME_NOREPLACE, "a", "c")).toEqual({
      kind: "err",
      errno: 0,
    });
    fs.flushAll();
    expect(mirror.vfs.readText("/c")).toBe("A");
    expect(mirror.vfs.exists("/a")).toBe(false);
  });

  it("RENAME_EXCHANGE swaps the names, and each node id keeps answering for its own inode", () => {
    const call = twoFiles();
    const inoA = mirror.vfs.stat("/a").ino;
    const inoB = mirror.vfs.stat("/b").ino;
    expect(call(OP.rename, ROOT, ROOT_INO, ROOT_INO, RENAME_EXCHANGE, "a", "b")).toEqual({
      kind: "err",
      errno: 0,
    });
    fs.flushAll();
    expect(contents()).toEqual(["B", "A"]);
    expect(call(OP.getattr, ROOT, inoA, -1)).toMatchObject({ kind: "attr", ino: inoA });
    expect(call(OP.getattr, ROOT, inoB, -1)).toMatchObject({ kind: "attr", ino: inoB });
    expect(call(OP.lookup, ROOT, ROOT_INO, "a")).toMatchObject({ kind: "entry", ino: inoB });
  });

  it("RENAME_EXCHANGE with a missing name is ENOENT and changes nothing", () => {
    const call = twoFiles();
    expect(call(OP.rename, ROOT, ROOT_INO, ROOT_INO, RENAME_EXCHANGE, "a", "c")).toEqual({
      kind: "err",
      errno: 2,
    });
    fs.flushAll();
    expect(contents()).toEqual(["A", "B"]);
  });

  it.each([
    ["RENAME_WHITEOUT", RENAME_WHITEOUT],
    ["NOREPLACE|EXCHANGE", RENAME_NOREPLACE | RENAME_EXCHANGE],
    ["EXCHANGE|WHITEOUT", RENAME_EXCHANGE | RENAME_WHITEOUT],
  ])("%s is EINVAL (not supported, as on a filesystem without it) and changes nothing", (_name, flags) => {
    const call = twoFiles();
    expect(call(OP.rename, ROOT, ROOT_INO, ROOT_INO, flags, "a", "b")).toEqual({ kind: "err", errno: 22 });
    fs.flushAll();
    expect(contents()).toEqual(["A", "B"]);
  });
});

describe("fuse3 handlers of directory handles the loop answered (native/fuse3.c)", () => {
  const LOOP_FH = 2 ** 40;

  it("a releasedir handed over without a request closes the handle; an opendir handed over opens it", () => {
    mirror.vfs.mkdir("/d");
    mirror.vfs.writeFile("/d/f", "x");
    const listener = testListener(recordingAddon(replies), fs);
    const call = caller(listener, replies);
    const d = call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    const opened = call(OP.opendir, ROOT, d, 0).fh ?? 0;
    expect(call(OP.readdir, ROOT, d, opened, 4096, 0)).toMatchObject({
      kind: "dir",
      names: [".", "..", "f"],
    });
    listener(OP.releasedir, null, 0, 0, 1, 0o022, d, opened);
    expect(call(OP.readdir, ROOT, d, opened, 4096, 0)).toEqual({ kind: "err", errno: 22 });
    // The loop's own handle: the listing is taken when the opendir reaches the listener.
    const before = replies.length;
    listener(OP.opendir, null, 0, 0, 1, 0o022, d, LOOP_FH);
    expect(replies.length).toBe(before);
    expect(call(OP.readdir, ROOT, d, LOOP_FH, 4096, 0)).toMatchObject({
      kind: "dir",
      names: [".", "..", "f"],
    });
    listener(OP.releasedir, null, 0, 0, 1, 0o022, d, LOOP_FH);
    expect(call(OP.readdir, ROOT, d, LOOP_FH, 4096, 0)).toEqual({ kind: "err", errno: 22 });
  });

  it("an opendir handed over for a directory removed meanwhile lists only . and ..", () => {
    mirror.vfs.mkdir("/d");
    const listener = testListener(recordingAddon(replies), fs);
    const call = caller(listener, replies);
    const d = call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    expect(call(OP.rmdir, ROOT, ROOT_INO, "d")).toEqual({ kind: "err", errno: 0 });
    listener(OP.opendir, null, 0, 0, 1, 0o022, d, LOOP_FH + 1);
    expect(call(OP.readdir, ROOT, d, LOOP_FH + 1, 4096, 0)).toMatchObject({
      kind: "dir",
      names: [".", ".."],
    });
  });

  it("a read-only open handed over registers the loop's handle: the file stays while it is open", () => {
    mirror.vfs.writeFile("/f", "kept");
    const listener = testListener(recordingAddon(replies), fs);
    const call = caller(listener, replies);
    const f = call(OP.lookup, ROOT, ROOT_INO, "f").ino ?? 0;
    const fh = 2 ** 41;
    listener(OP.open, null, 0, 0, 1, 0o022, f, 0, fh);
    expect(call(OP.unlink, ROOT, ROOT_INO, "f")).toEqual({ kind: "err", errno: 0 });
    expect(call(OP.getattr, ROOT, f, fh)).toMatchObject({ kind: "attr", ino: f });
    expect(fs.files.inoOf(fh)).toBe(f);
    const hidden = mirror.vfs.readdir("/").entries.find((entry) => entry.name.startsWith(".fuse_hidden"));
    expect(hidden?.ino).toBe(f);
    expect(mirror.vfs.readText(`/${hidden?.name}`)).toBe("kept");
    listener(OP.release, null, 0, 0, 1, 0o022, f, fh);
    expect(fs.files.inoOf(fh)).toBeUndefined();
  });
});
