/**
 * The directories the FUSE loop answers getattr for: after a name in a directory changed, the
 * listener gives the loop exactly what a getattr of that directory would answer, before the
 * reply that lets the kernel ask, and drops what moved or went away; any other request that
 * may change a directory clears them first (so does a failed change of names), and requests
 * that cannot (lookups, reads, closes) leave them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHandlers, recordingAddon, type TestHandlers } from "../../test/mount-harness.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";

const ROOT = { uid: 0, gid: 0 };
const SET_MODE = 1;

let t: TestHandlers;
/** What the loop was told, in order: ["cache", attributes], ["drop", [ino]] or ["clear"]. */
let loop: (["cache" | "drop", number[]] | ["clear"])[];
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
      dropDirectory: (ino) => loop.push(["drop", [ino]]),
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

  it("is told after mkdir, link, rename and unlink, and forgets what moved or went, clearing nothing else", () => {
    const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    const f = t.call(OP.lookup, ROOT, d, "f").ino ?? 0;
    const sub = t.call(OP.mkdir, ROOT, d, 0o755, "sub").ino ?? 0;
    t.call(OP.link, ROOT, f, ROOT_INO, "hard");
    t.call(OP.rename, ROOT, d, ROOT_INO, 0, "f", "moved");
    t.call(OP.unlink, ROOT, ROOT_INO, "moved");
    t.call(OP.rename, ROOT, d, ROOT_INO, 0, "sub", "top");
    t.call(OP.rmdir, ROOT, ROOT_INO, "top");
    const told = loop.map((entry) => (entry[0] === "clear" ? "clear" : `${entry[0]} ${entry[1][0]}`));
    expect(told).toEqual([
      `cache ${d}`,
      `cache ${ROOT_INO}`,
      `drop ${f}`,
      `cache ${d}`,
      `cache ${ROOT_INO}`,
      `cache ${ROOT_INO}`,
      `drop ${sub}`,
      `cache ${d}`,
      `cache ${ROOT_INO}`,
      `drop ${sub}`,
      `cache ${ROOT_INO}`,
    ]);
  });

  it("clears them when a change of names fails part way or at all", () => {
    const d = t.call(OP.lookup, ROOT, ROOT_INO, "d").ino ?? 0;
    t.call(OP.mkdir, ROOT, d, 0o755, "sub");
    expect(t.call(OP.mkdir, ROOT, d, 0o755, "sub")).toMatchObject({ kind: "err" });
    expect(loop.map(([kind]) => kind)).toEqual(["cache", "clear"]);
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
    // Unlinked while open: the file moves to a hidden name in the root, which changes too.
    t.call(OP.unlink, ROOT, d, "f");
    const cached = () => loop.map((entry) => (entry[0] === "cache" ? entry[1][0] : entry[0]));
    expect(cached()).toEqual([ROOT_INO, d]);
    t.call(OP.release, ROOT, f, opened.fh ?? 0);
    expect(cached()).toEqual([ROOT_INO, d, "clear"]);
  });
});
