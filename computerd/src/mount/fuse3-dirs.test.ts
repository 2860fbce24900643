/**
 * readdirplus: every entry carries its attributes, the entries that fit the kernel's buffer
 * are the ones sent, and the node table holds exactly the lookups the kernel took — one per
 * entry sent, none for "." and "..", none for a name gone since opendir — so forget stays right.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHandlers, type TestHandlers } from "../../test/mount-harness.ts";
import { direntPlusSize } from "./fuse3-dirs.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";

const ROOT = { uid: 0, gid: 0 };

let t: TestHandlers;

beforeEach(() => {
  t = openTestHandlers("computerd-fuse3-plus-", {
    setup: (vfs) => {
      vfs.mkdir("/d");
      vfs.writeFile("/d/a", "xyz");
      vfs.writeFile("/d/b", "");
      vfs.mkdir("/d/sub");
    },
  });
});

afterEach(() => t.close());

/** Looks up /d and opens it: [its inode, the directory handle]. */
function openD(): [number, number] {
  const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
  return [d, t.call(OP.opendir, ROOT, d).fh ?? 0];
}

describe("fuse3 readdirplus", () => {
  it("sends every entry with its attributes and counts one lookup for each but . and ..", () => {
    const [d, fh] = openD();
    const reply = t.call(OP.readdirplus, ROOT, d, fh, 4096, 0);
    expect(reply).toMatchObject({ kind: "dirplus" });
    expect(reply.names).toEqual([".", "..", "a", "b", "sub"]);
    const a = t.mirror.vfs.lstat("/d/a");
    expect(reply.entries?.[2]).toEqual({ ino: a.ino, nlink: 1 });
    expect(reply.entries?.[4]?.nlink).toBe(2);
    // The children are known nodes with paths now: getattr by node id works without a lookup.
    expect(t.nodes.pathOf(a.ino)).toBe("/d/a");
    expect(t.call(OP.getattr, ROOT, a.ino, -1)).toMatchObject({ kind: "attr", ino: a.ino });
    // One lookup each: a single forget drops the child; /d keeps only its own lookup.
    t.nodes.forget(a.ino, 1);
    expect(t.nodes.has(a.ino)).toBe(false);
    t.nodes.forget(d, 1);
    expect(t.nodes.has(d)).toBe(false);
  });

  it("looks up only the entries that fit the kernel's buffer, and goes on from the offset", () => {
    const [d, fh] = openD();
    const size = direntPlusSize(".") + direntPlusSize("..") + direntPlusSize("a") + 7;
    expect(t.call(OP.readdirplus, ROOT, d, fh, size, 0).names).toEqual([".", "..", "a"]);
    const b = t.mirror.vfs.lstat("/d/b").ino;
    expect(t.nodes.has(b)).toBe(false);
    expect(t.call(OP.readdirplus, ROOT, d, fh, 4096, 3).names).toEqual(["b", "sub"]);
    expect(t.nodes.has(b)).toBe(true);
    expect(t.call(OP.readdirplus, ROOT, d, fh, 4096, 5).names).toEqual([]);
  });

  it("sends a name removed since opendir without a node (nlink 0), taking no lookup", () => {
    const [d, fh] = openD();
    const b = t.mirror.vfs.lstat("/d/b").ino;
    t.mirror.vfs.unlink("/d/b");
    t.fs.invalidate(["/d/b"]);
    const reply = t.call(OP.readdirplus, ROOT, d, fh, 4096, 0);
    expect(reply.names).toEqual([".", "..", "a", "b", "sub"]);
    expect(reply.entries?.[3]).toEqual({ ino: b, nlink: 0 });
    expect(t.nodes.has(b)).toBe(false);
  });

  it("answers EINVAL for a handle that is not an open directory", () => {
    const [d] = openD();
    expect(t.call(OP.readdirplus, ROOT, d, 999, 4096, 0)).toMatchObject({ kind: "err", errno: 22 });
  });
});
