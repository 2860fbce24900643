/**
 * readdirplus: every entry carries its attributes, the entries that fit the kernel's buffer
 * are the ones sent, and the node table holds exactly the lookups the kernel took — one per
 * entry sent, none for "." and "..", none for a name gone since opendir — so forget stays right.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caller, openTestLocalFs, type Reply, recordingAddon } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import { direntPlusSize } from "./fuse3-dirs.ts";
import { OP } from "./fuse3-native.ts";
import type { NodeTable } from "./fuse3-nodes.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";
import { fuse3Listener } from "./fuse3-ops.ts";
import type { LocalFs } from "./local-fs.ts";

const ROOT = { uid: 0, gid: 0 };

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;
let replies: Reply[];
let nodes: NodeTable;
let call: ReturnType<typeof caller>;

beforeEach(() => {
  ({ mirror, fs, close } = openTestLocalFs("computerd-fuse3-plus-"));
  replies = [];
  // Made before the listener: it lists the root (stale hidden files) when it starts.
  mirror.vfs.mkdir("/d");
  mirror.vfs.writeFile("/d/a", "xyz");
  mirror.vfs.writeFile("/d/b", "");
  mirror.vfs.mkdir("/d/sub");
  const timeouts = { entryTimeout: 1, attrTimeout: 1, negativeTimeout: 1, pageCache: "auto" as const };
  const built = fuse3Listener(
    recordingAddon(replies),
    fs,
    () => {},
    {},
    timeouts,
    () => {},
  );
  nodes = built.nodes;
  call = caller(built.listener, replies);
});

afterEach(() => close());

/** Looks up /d and opens it: [its inode, the directory handle]. */
function openD(): [number, number] {
  const d = call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
  return [d, call(OP.opendir, ROOT, d).fh ?? 0];
}

describe("fuse3 readdirplus", () => {
  it("sends every entry with its attributes and counts one lookup for each but . and ..", () => {
    const [d, fh] = openD();
    const reply = call(OP.readdirplus, ROOT, d, fh, 4096, 0);
    expect(reply).toMatchObject({ kind: "dirplus" });
    expect(reply.names).toEqual([".", "..", "a", "b", "sub"]);
    const a = mirror.vfs.lstat("/d/a");
    expect(reply.entries?.[2]).toEqual({ ino: a.ino, nlink: 1 });
    expect(reply.entries?.[4]?.nlink).toBe(2);
    // The children are known nodes with paths now: getattr by node id works without a lookup.
    expect(nodes.pathOf(a.ino)).toBe("/d/a");
    expect(call(OP.getattr, ROOT, a.ino, -1)).toMatchObject({ kind: "attr", ino: a.ino });
    // One lookup each: a single forget drops the child; /d keeps only its own lookup.
    nodes.forget(a.ino, 1);
    expect(nodes.has(a.ino)).toBe(false);
    nodes.forget(d, 1);
    expect(nodes.has(d)).toBe(false);
  });

  it("looks up only the entries that fit the kernel's buffer, and goes on from the offset", () => {
    const [d, fh] = openD();
    const size = direntPlusSize(".") + direntPlusSize("..") + direntPlusSize("a") + 7;
    expect(call(OP.readdirplus, ROOT, d, fh, size, 0).names).toEqual([".", "..", "a"]);
    const b = mirror.vfs.lstat("/d/b").ino;
    expect(nodes.has(b)).toBe(false);
    expect(call(OP.readdirplus, ROOT, d, fh, 4096, 3).names).toEqual(["b", "sub"]);
    expect(nodes.has(b)).toBe(true);
    expect(call(OP.readdirplus, ROOT, d, fh, 4096, 5).names).toEqual([]);
  });

  it("sends a name removed since opendir without a node (nlink 0), taking no lookup", () => {
    const [d, fh] = openD();
    const b = mirror.vfs.lstat("/d/b").ino;
    mirror.vfs.unlink("/d/b");
    fs.invalidate(["/d/b"]);
    const reply = call(OP.readdirplus, ROOT, d, fh, 4096, 0);
    expect(reply.names).toEqual([".", "..", "a", "b", "sub"]);
    expect(reply.entries?.[3]).toEqual({ ino: b, nlink: 0 });
    expect(nodes.has(b)).toBe(false);
  });

  it("answers EINVAL for a handle that is not an open directory", () => {
    const [d] = openD();
    expect(call(OP.readdirplus, ROOT, d, 999, 4096, 0)).toMatchObject({ kind: "err", errno: 22 });
  });
});
