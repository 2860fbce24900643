/**
 * The change feed: one revision per mutation, the coalesced current state of each changed
 * path (stat, chunk hashes, target), deletes, and resumable, complete paging.
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { statementsOf } from "../test/statements.ts";
import { bytes, livePaths } from "../test/tree.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { Change } from "./types.ts";
import type { Vfs } from "./vfs.ts";

/** Every change after `cursor`, following pages of `limit`. */
function drain(
  vfs: Vfs,
  cursor: string,
  limit: number,
): { changes: Change[]; cursor: string; pages: number } {
  const all: Change[] = [];
  let pages = 0;
  for (;;) {
    const page = vfs.changes(cursor, { limit });
    pages++;
    expect(page.changes.length).toBeLessThanOrEqual(limit);
    expect(page.reset).toBe(false);
    all.push(...page.changes);
    cursor = page.cursor;
    if (!page.more) return { changes: all, cursor, pages };
  }
}

describe("revisions", () => {
  vfsTest(
    "every mutation bumps the revision by exactly one; reads, failures and no-ops do not",
    async (vfs) => {
      const start = vfs.rev();
      expect(start).toBe(1);
      const steps: [string, () => unknown][] = [
        ["mkdir", () => vfs.mkdir("/d")],
        ["mkdir -p", () => vfs.mkdir("/p/q/r", { recursive: true })],
        ["writeFile", () => vfs.writeFile("/d/f", "hello")],
        ["pwrite", () => vfs.pwrite("/d/f", 1, "E")],
        ["appendFile", () => vfs.appendFile("/d/f", "!")],
        ["truncate", () => vfs.truncate("/d/f", 3)],
        ["chmod", () => vfs.chmod("/d/f", 0o600)],
        ["chown", () => vfs.chown("/d/f", 1, 1)],
        ["utimes", () => vfs.utimes("/d/f", "now", "now")],
        ["symlink", () => vfs.symlink("f", "/d/l")],
        ["link", () => vfs.link("/d/f", "/d/h")],
        ["mknod", () => vfs.mknod("/d/p", "fifo", 0o644)],
        ["setxattr", () => vfs.setxattr("/d/f", "user.k", bytes("v"))],
        ["removexattr", () => vfs.removexattr("/d/f", "user.k")],
        ["rename", () => vfs.rename("/d/h", "/h")],
        ["unlink", () => vfs.unlink("/h")],
        ["rmdir", () => vfs.rmdir("/p/q/r")],
        ["rm -r", () => vfs.rm("/p", { recursive: true })],
      ];
      let expected = start;
      for (const [name, step] of steps) {
        step();
        expected++;
        expect(vfs.rev(), name).toBe(expected);
      }
      await vfs.writeStream(
        "/s",
        (async function* () {
          yield bytes("streamed");
        })(),
      );
      expect(vfs.rev()).toBe(++expected);
      const idle: (() => unknown)[] = [
        () => vfs.stat("/d/f"),
        () => vfs.readFile("/d/f"),
        () => vfs.list("/d"),
        () => vfs.find("/", "**"),
        () => vfs.grep("/", "x"),
        () => vfs.mkdir("/d", { recursive: true }),
        () => vfs.rename("/d/f", "/d/f"),
        () => vfs.rm("/none", { force: true }),
        () => vfs.setQuota(1 << 30),
        () => vfs.checkpoint("cp"),
        () => vfs.deleteCheckpoint("cp"),
        () => vfs.putBlob(bytes("loose")),
        () => vfs.gc(),
        () => vfs.changes("0"),
      ];
      for (const step of idle) step();
      for (const failing of [
        () => vfs.mkdir("/d"),
        () => vfs.unlink("/none"),
        () => vfs.writeFile("/s", "x", { exclusive: true }),
      ]) {
        expect(failing).toThrow();
      }
      expect(vfs.rev()).toBe(expected);
      expect(vfs.changes(String(expected - 1)).changes.map((c) => c.path)).toEqual(["/", "/s"]);
    },
  );

  vfsTest("all changes of one operation share its revision; parents report their new stat", (vfs) => {
    vfs.mkdir("/a/b/c", { recursive: true });
    const page = vfs.changes("1");
    expect(page.changes.map((c) => [c.path, c.rev])).toEqual([
      ["/", 2],
      ["/a", 2],
      ["/a/b", 2],
      ["/a/b/c", 2],
    ]);
    expect(page.changes[0]?.stat).toEqual(vfs.stat("/"));
    expect(page.changes[0]?.stat?.nlink).toBe(3);
  });

  vfsTest("the revision persists across reopen", (vfs, { reopen }) => {
    vfs.writeFile("/f", "x");
    vfs.writeFile("/g", "y");
    const again = reopen();
    expect(again.rev()).toBe(vfs.rev());
    again.writeFile("/h", "z");
    expect(again.rev()).toBe(4);
  });
});

describe("changes", () => {
  vfsTest('from "0": the current state of every path, with stat, chunk hashes and targets', (vfs) => {
    vfs.mkdir("/d");
    const file = vfs.writeFile("/d/f", "content");
    vfs.symlink("d/f", "/l");
    vfs.writeFile("/sparse", "ab");
    vfs.truncate("/sparse", 2 * CHUNK_SIZE);
    vfs.pwrite("/sparse", 2 * CHUNK_SIZE, "cd");
    const page = vfs.changes("0");
    expect(page.reset).toBe(false);
    expect(page.more).toBe(false);
    const byPath = Object.fromEntries(page.changes.map((c) => [c.path, c]));
    expect(Object.keys(byPath).sort()).toEqual(livePaths(vfs));
    expect(byPath["/"]?.stat?.type).toBe("dir");
    expect(byPath["/d/f"]?.stat).toEqual(vfs.stat("/d/f"));
    expect(byPath["/d/f"]?.stat?.ino).toBe(file.ino);
    expect(byPath["/d/f"]?.chunks).toEqual([
      "ed7002b439e9ac845f22357d822bac1444730fbdb6016d3ec9432297b9ec9f73",
    ]);
    expect(byPath["/l"]?.target).toBe("d/f");
    expect(byPath["/l"]?.stat?.type).toBe("symlink");
    expect(byPath["/sparse"]?.chunks?.[1]).toBe("");
    expect(byPath["/sparse"]?.chunks).toHaveLength(3);
    expect(byPath["/d"]?.chunks).toBeUndefined();
  });

  vfsTest("an operation writes the records of every path it changed in one statement", (vfs, { sql }) => {
    vfs.writeFile("/a", "x");
    vfs.mkdir("/d");
    vfs.mkdir("/t");
    for (let i = 0; i < 6; i++) vfs.writeFile(`/t/f${i}`, "y");
    const records = (fn: () => void) =>
      statementsOf(sql, fn).filter((q) => q.startsWith("INSERT INTO changes"));
    const from = vfs.changes("0").cursor;
    // The directory, the new name and the old one (a hard-linked file is recorded under each).
    expect(records(() => vfs.link("/a", "/d/b"))).toHaveLength(1);
    expect(records(() => vfs.unlink("/a"))).toHaveLength(1);
    // Fifteen paths: the root, /t and its six files gone, /u and its six files.
    expect(records(() => vfs.rename("/t", "/u"))).toHaveLength(1);
    const feed = vfs.changes(from, { describe: false }).changes;
    const revs = new Map(feed.map((c) => [c.path, c.rev]));
    const rename = vfs.rev();
    const six = (dir: string) => Array.from({ length: 6 }, (_, i) => `${dir}/f${i}`);
    expect([...revs.keys()].sort()).toEqual(
      ["/", "/a", "/d", "/d/b", "/t", "/u", ...six("/t"), ...six("/u")].sort(),
    );
    expect([revs.get("/d"), revs.get("/d/b"), revs.get("/a"), revs.get("/t"), revs.get("/u/f5")]).toEqual([
      rename - 2,
      rename - 1,
      rename - 1,
      rename,
      rename,
    ]);
    expect(vfs.changes(from).changes.find((c) => c.path === "/a")?.stat).toBeUndefined();
  });

  vfsTest("describe: false gives the same paths, revisions and cursors without the states", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "content");
    vfs.writeFile("/gone", "x");
    vfs.unlink("/gone");
    const full = vfs.changes("0", { limit: 2 });
    const light = vfs.changes("0", { limit: 2, describe: false });
    expect(light.changes).toEqual(full.changes.map((c) => ({ path: c.path, rev: c.rev })));
    expect({ ...light, changes: [] }).toEqual({ ...full, changes: [] });
    const rest = vfs.changes(light.cursor, { describe: false });
    expect(rest.changes.map((c) => c.path)).toEqual(vfs.changes(full.cursor).changes.map((c) => c.path));
  });

  vfsTest("coalesces: one entry per path with its latest state, deletes without stat", (vfs) => {
    vfs.writeFile("/stays", "1");
    vfs.writeFile("/recreated", "1");
    const cursor = String(vfs.rev());
    vfs.writeFile("/f", "one");
    vfs.writeFile("/f", "two");
    vfs.appendFile("/f", "three");
    vfs.writeFile("/tmp", "x");
    vfs.unlink("/tmp");
    vfs.unlink("/recreated");
    vfs.mkdir("/recreated");
    const page = vfs.changes(cursor);
    const final = vfs.rev();
    expect(page.changes).toEqual([
      { path: "/f", rev: Number(cursor) + 3, stat: vfs.stat("/f"), chunks: [expect.any(String)] },
      { path: "/tmp", rev: Number(cursor) + 5 },
      { path: "/", rev: final, stat: vfs.stat("/") },
      { path: "/recreated", rev: final, stat: vfs.stat("/recreated") },
    ]);
    expect(vfs.changes(page.cursor).changes).toEqual([]);
  });

  vfsTest("an up-to-date cursor returns nothing and stays valid", (vfs) => {
    vfs.writeFile("/f", "x");
    const { cursor } = drain(vfs, "0", 100);
    const page = vfs.changes(cursor);
    expect(page).toEqual({ changes: [], cursors: [], cursor, more: false, reset: false });
    vfs.writeFile("/g", "y");
    expect(vfs.changes(cursor).changes.map((c) => c.path)).toEqual(["/", "/g"]);
    expect(vfs.changes(String(vfs.rev())).changes).toEqual([]);
  });

  vfsTest("paging is resumable and complete: no path lost or repeated", (vfs) => {
    for (let i = 0; i < 20; i++) vfs.writeFile(`/f${String(i).padStart(2, "0")}`, `${i}`);
    vfs.mkdir("/many/a/b/c/d/e/f/g", { recursive: true });
    const whole = vfs.changes("0", { limit: 10_000 }).changes;
    for (const limit of [1, 2, 3, 7, 1000]) {
      const { changes, pages } = drain(vfs, "0", limit);
      expect(changes).toEqual(whole);
      expect(new Set(changes.map((c) => c.path)).size).toBe(changes.length);
      expect(pages).toBe(Math.ceil(whole.length / limit));
    }
  });

  vfsTest("paging while the tree changes still ends at the live tree", (vfs) => {
    for (let i = 0; i < 15; i++) vfs.writeFile(`/f${String(i).padStart(2, "0")}`, `${i}`);
    const mirror = new Map<string, Change>();
    let cursor = "0";
    let round = 0;
    for (;;) {
      const page = vfs.changes(cursor, { limit: 4 });
      for (const c of page.changes) {
        if (c.stat) mirror.set(c.path, c);
        else mirror.delete(c.path);
      }
      cursor = page.cursor;
      round++;
      if (round === 1) vfs.writeFile("/f00", "changed after it was sent");
      if (round === 2) vfs.unlink("/f14");
      if (round === 3) vfs.rename("/f13", "/moved");
      if (!page.more) break;
    }
    expect([...mirror.keys()].sort()).toEqual(livePaths(vfs));
    expect(mirror.get("/f00")?.stat?.size).toBe(25);
  });

  vfsTest("errors: EINVAL for a malformed cursor", (vfs, { sql }) => {
    expectFails(sql, "EINVAL", () => vfs.changes("abc"));
    expectFails(sql, "EINVAL", () => vfs.changes("-1"));
    expectFails(sql, "EINVAL", () => vfs.changes("1.5:/x"));
  });
});
