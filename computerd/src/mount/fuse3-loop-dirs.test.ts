/**
 * The directories the FUSE loop answers getattr for: after a name in a directory changed, the
 * listener gives the loop exactly what a getattr of that directory would answer, before the
 * reply that lets the kernel ask; any request that may change a directory otherwise clears
 * them first, and requests that cannot (lookups, reads, closes) leave them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHandlers, recordingAddon, type TestHandlers } from "../../test/mount-harness.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";

const ROOT = { uid: 0, gid: 0 };
const SET_MODE = 1;

let t: TestHandlers;
/** What the loop was told, in order: ["cache", attributes] or ["clear"]. */
let loop: (["cache", number[]] | ["clear"])[];
/** The attributes of the last attr reply. */
let lastAttr: number[];

beforeEach(() => {
  loop = [];
  t = openTestHandlers("computerd-fuse3-loopdirs-", {
    setup: (vfs) => {
      vfs.mkdir("/d");
      vfs.writeFile("/d/f", "x");
    },
    addon: (replies) => ({
      ...recordingAddon(replies),
      replyAttr: (_req, attr) => {
        lastAttr = Array.from(attr);
        replies.push({ kind: "attr", ino: attr[0] ?? 0 });
        return 0;
      },
    }),
    kernel: {
      cacheDirectory: (attr) => loop.push(["cache", Array.from(attr)]),
      clearDirectories: () => loop.push(["clear"]),
    },
  });
});

afterEach(() => t.close());

/** The attributes a getattr of `ino` answers now. */
function getattr(ino: number): number[] {
  t.call(OP.getattr, ROOT, ino, -1);
  return lastAttr;
}

describe("the FUSE loop's directories", () => {
  it("gets a directory's new attributes after a create in it, the same a getattr answers", () => {
    const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    const before = getattr(d);
    t.call(OP.create, ROOT, d, 0o644, 0o101, "new");
    expect(loop).toHaveLength(1);
    const [kind, attr] = loop[0] as ["cache", number[]];
    expect(kind).toBe("cache");
    expect(attr[0]).toBe(d);
    expect(attr).toEqual(getattr(d));
    // The create changed the directory's mtime: the loop does not hold the old attributes.
    const mtime = (a: number[]) => (a[10] ?? 0) * 1e9 + (a[11] ?? 0);
    expect(mtime(attr)).toBeGreaterThan(mtime(before));
  });

  it("is told after mkdir, unlink, link and rename, for both directories of a rename", () => {
    const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    const f = t.call(OP.lookup, ROOT, d, "f").ino ?? 0;
    t.call(OP.mkdir, ROOT, d, 0o755, "sub");
    t.call(OP.link, ROOT, f, ROOT_INO, "hard");
    t.call(OP.rename, ROOT, d, ROOT_INO, 0, "f", "moved");
    t.call(OP.unlink, ROOT, ROOT_INO, "moved");
    const cached = loop.filter(([kind]) => kind === "cache").map((entry) => (entry[1] as number[])[0]);
    expect(cached).toEqual([d, ROOT_INO, d, ROOT_INO, ROOT_INO]);
    // Each of these requests may change a directory: the loop's were cleared before each.
    expect(loop.map(([kind]) => kind)).toEqual([
      "cache",
      "clear",
      "cache",
      "clear",
      "cache",
      "cache",
      "clear",
      "cache",
    ]);
  });

  it("clears them before a setattr or a readdir, and keeps them across lookups, reads and closes", () => {
    const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    const created = t.call(OP.create, ROOT, d, 0o644, 0o101, "new");
    const fh = created.fh ?? 0;
    t.call(OP.lookup, ROOT, d, "f");
    t.call(OP.getattr, ROOT, d, -1);
    t.call(OP.write, ROOT, created.ino ?? 0, fh, 0, Buffer.from("abc"));
    t.call(OP.flush, ROOT, created.ino ?? 0, fh);
    t.call(OP.release, ROOT, created.ino ?? 0, fh);
    expect(loop.map(([kind]) => kind)).toEqual(["cache"]);
    t.call(OP.setattr, ROOT, d, SET_MODE, 0o700, 0, 0, 0, 0, 0, 0, 0, -1);
    expect(loop.map(([kind]) => kind)).toEqual(["cache", "clear"]);
    t.call(OP.create, ROOT, d, 0o644, 0o101, "again");
    const opened = t.call(OP.opendir, ROOT, d);
    t.call(OP.readdirplus, ROOT, d, opened.fh ?? 0, 4096, 0);
    expect(loop.map(([kind]) => kind)).toEqual(["cache", "clear", "cache", "clear"]);
  });

  it("clears them when a close removes a hidden file (the root changed)", () => {
    const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    const f = t.call(OP.lookup, ROOT, d, "f").ino ?? 0;
    const opened = t.call(OP.open, ROOT, f, 0);
    t.call(OP.unlink, ROOT, d, "f");
    expect(loop.map(([kind]) => kind)).toEqual(["cache"]);
    t.call(OP.release, ROOT, f, opened.fh ?? 0);
    expect(loop.map(([kind]) => kind)).toEqual(["cache", "clear"]);
  });
});
