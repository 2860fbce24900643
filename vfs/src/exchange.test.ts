/** rename with `exchange`: atomic swaps of any two names, link counts, times, the feed and every error case. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { dumpTree } from "../test/tree.ts";
import type { Change } from "./types.ts";
import type { Vfs } from "./vfs.ts";

const exchange = { exchange: true };

/** Applies every change after `cursor` to `mirror` (path → change) and returns the new cursor. */
function follow(vfs: Vfs, cursor: string, mirror: Map<string, Change>): string {
  for (;;) {
    const page = vfs.changes(cursor, { limit: 4 });
    for (const c of page.changes) {
      if (c.stat) mirror.set(c.path, c);
      else mirror.delete(c.path);
    }
    cursor = page.cursor;
    if (!page.more) return cursor;
  }
}

/** What a feed reader must agree with the tree on: each path's inode and type. */
function shapeOfFeed(mirror: Map<string, Change>): Record<string, [number | undefined, string | undefined]> {
  return Object.fromEntries([...mirror].sort().map(([p, c]) => [p, [c.stat?.ino, c.stat?.type]]));
}

function shapeOfTree(vfs: Vfs): Record<string, [number | undefined, string | undefined]> {
  return Object.fromEntries(
    Object.entries(dumpTree(vfs))
      .sort()
      .map(([p, e]) => [p, [e.ino, e.type]]),
  );
}

describe("rename exchange swaps", () => {
  vfsTest("two files in one directory: each name gets the other's inode and content", (vfs) => {
    const a = vfs.writeFile("/a", "alpha");
    const b = vfs.writeFile("/b", "beta!!");
    const used = vfs.usage().usedBytes;
    vfs.rename("/a", "/b", exchange);
    expect(vfs.stat("/a")).toMatchObject({ ino: b.ino, size: 6, nlink: 1 });
    expect(vfs.stat("/b")).toMatchObject({ ino: a.ino, size: 5, nlink: 1 });
    expect(vfs.readText("/a")).toBe("beta!!");
    expect(vfs.readText("/b")).toBe("alpha");
    expect(vfs.list("/").map((e) => e.name)).toEqual(["a", "b"]);
    expect(vfs.usage().usedBytes).toBe(used);
  });

  vfsTest("a directory and a file across directories, moving the subdirectory link count", (vfs) => {
    vfs.mkdir("/p/dir/sub", { recursive: true });
    vfs.writeFile("/p/dir/sub/f", "deep");
    vfs.mkdir("/q");
    vfs.writeFile("/q/file", "flat");
    const dir = vfs.stat("/p/dir").ino;
    const file = vfs.stat("/q/file").ino;
    expect([vfs.stat("/p").nlink, vfs.stat("/q").nlink]).toEqual([3, 2]);
    vfs.rename("/p/dir", "/q/file", exchange);
    expect(vfs.lstat("/p/dir")).toMatchObject({ ino: file, type: "file" });
    expect(vfs.lstat("/q/file")).toMatchObject({ ino: dir, type: "dir", nlink: 3 });
    expect(vfs.readText("/q/file/sub/f")).toBe("deep");
    expect(vfs.readText("/p/dir")).toBe("flat");
    expect([vfs.stat("/p").nlink, vfs.stat("/q").nlink]).toEqual([2, 3]);
    expect(vfs.realpath("/q/file/sub")).toBe("/q/file/sub");
    // The other order of the same swap restores everything.
    vfs.rename("/q/file", "/p/dir", exchange);
    expect(vfs.readText("/p/dir/sub/f")).toBe("deep");
    expect([vfs.stat("/p").nlink, vfs.stat("/q").nlink]).toEqual([3, 2]);
  });

  vfsTest("a file and a directory in one directory leave its link count alone", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    vfs.rename("/f", "/d", exchange);
    expect(vfs.lstat("/f").type).toBe("dir");
    expect(vfs.lstat("/d").type).toBe("file");
    expect(vfs.stat("/").nlink).toBe(3);
  });

  vfsTest("two non-empty directories across parents, each with its whole subtree", (vfs) => {
    vfs.mkdir("/x/left/l1", { recursive: true });
    vfs.writeFile("/x/left/l1/a", "A");
    vfs.writeFile("/x/left/shared", "left");
    vfs.mkdir("/y/right", { recursive: true });
    vfs.writeFile("/y/right/shared", "right");
    vfs.rename("/x/left", "/y/right", exchange);
    expect(vfs.readText("/x/left/shared")).toBe("right");
    expect(vfs.readText("/y/right/shared")).toBe("left");
    expect(vfs.readText("/y/right/l1/a")).toBe("A");
    expect(vfs.exists("/x/left/l1")).toBe(false);
    expect([vfs.stat("/x").nlink, vfs.stat("/y").nlink]).toEqual([3, 3]);
    expect([vfs.stat("/x/left").nlink, vfs.stat("/y/right").nlink]).toEqual([2, 3]);
  });

  vfsTest("symlinks themselves, never their targets, also through a symlinked parent", (vfs) => {
    vfs.mkdir("/real");
    vfs.symlink("real", "/via");
    vfs.writeFile("/real/f", "file");
    vfs.symlink("real/f", "/link");
    vfs.rename("/link", "/via/f", exchange);
    expect(vfs.readlink("/real/f")).toBe("real/f");
    expect(vfs.lstat("/link").type).toBe("file");
    expect(vfs.readText("/link")).toBe("file");
    expect(vfs.readlink("/via")).toBe("real");
  });

  vfsTest("a hard-linked file: its other names stay links of it, counts unchanged", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/a", "linked");
    vfs.link("/a", "/keep");
    vfs.writeFile("/d/b", "single");
    vfs.rename("/a", "/d/b", exchange);
    expect(vfs.stat("/d/b").ino).toBe(vfs.stat("/keep").ino);
    expect(vfs.stat("/keep").nlink).toBe(2);
    expect(vfs.readText("/a")).toBe("single");
    expect(vfs.stat("/a").nlink).toBe(1);
    expect(vfs.namesOf(vfs.stat("/keep").ino).sort()).toEqual(["/d/b", "/keep"]);
  });

  vfsTest("special files keep their type and device number", (vfs) => {
    vfs.mknod("/dev", "char", 0o600, 0x105);
    vfs.mknod("/pipe", "fifo", 0o644);
    vfs.rename("/dev", "/pipe", exchange);
    expect(vfs.lstat("/pipe")).toMatchObject({ type: "char", rdev: 0x105 });
    expect(vfs.lstat("/dev")).toMatchObject({ type: "fifo", rdev: 0 });
  });
});

describe("rename exchange times", () => {
  vfsTest(
    "both inodes get a new ctime, both parents new mtime and ctime; nothing else moves",
    (vfs, { clock }) => {
      vfs.mkdir("/p");
      vfs.mkdir("/q");
      vfs.writeFile("/p/a", "a");
      vfs.mkdir("/q/b");
      const before = { a: vfs.stat("/p/a"), b: vfs.stat("/q/b"), root: vfs.stat("/") };
      clock.advance(5000);
      vfs.rename("/p/a", "/q/b", exchange);
      const later = (t: { sec: number }) => t.sec - before.a.ctime.sec;
      for (const path of ["/p", "/q"]) {
        expect(later(vfs.stat(path).mtime), path).toBe(5);
        expect(later(vfs.stat(path).ctime), path).toBe(5);
      }
      expect(vfs.stat("/q/b")).toMatchObject({ mtime: before.a.mtime, atime: before.a.atime });
      expect(later(vfs.stat("/q/b").ctime)).toBe(5);
      expect(vfs.stat("/p/a")).toMatchObject({ mtime: before.b.mtime, atime: before.b.atime });
      expect(later(vfs.stat("/p/a").ctime)).toBe(5);
      expect(vfs.stat("/")).toEqual(before.root);
    },
  );
});

describe("rename exchange no-ops", () => {
  vfsTest("a name with itself, or two names of one inode, changes nothing", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/a", "x");
    vfs.link("/a", "/b");
    const rev = vfs.rev();
    const rows = sql.exec("SELECT * FROM nodes ORDER BY ino");
    vfs.rename("/a", "/a", exchange);
    vfs.rename("/d", "/d/.", exchange);
    vfs.rename("/a", "/b", exchange);
    expect(vfs.rev()).toBe(rev);
    expect(sql.exec("SELECT * FROM nodes ORDER BY ino")).toEqual(rows);
  });
});

describe("rename exchange in the change feed", () => {
  vfsTest("one revision naming both parents and both names", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    vfs.writeFile("/g", "y");
    const cursor = String(vfs.rev());
    vfs.rename("/d/f", "/g", exchange);
    const page = vfs.changes(cursor);
    expect(page.changes.map((c) => [c.path, c.rev, c.stat?.ino])).toEqual([
      ["/", Number(cursor) + 1, 1],
      ["/d", Number(cursor) + 1, vfs.stat("/d").ino],
      ["/d/f", Number(cursor) + 1, vfs.stat("/d/f").ino],
      ["/g", Number(cursor) + 1, vfs.stat("/g").ino],
    ]);
  });

  vfsTest("a reader that follows the feed sees every path below both swapped directories", (vfs) => {
    vfs.mkdir("/x/one/deep/er", { recursive: true });
    vfs.writeFile("/x/one/deep/er/f", "1");
    vfs.writeFile("/x/one/only-in-one", "1");
    vfs.writeFile("/x/one/both", "1");
    vfs.mkdir("/y/two/only-in-two", { recursive: true });
    vfs.writeFile("/y/two/both", "2");
    vfs.writeFile("/y/two/only-in-two/g", "2");
    vfs.writeFile("/lone", "file");
    const mirror = new Map<string, Change>();
    let cursor = follow(vfs, "0", mirror);
    vfs.rename("/x/one", "/y/two", exchange);
    cursor = follow(vfs, cursor, mirror);
    expect(shapeOfFeed(mirror)).toEqual(shapeOfTree(vfs));
    expect(mirror.has("/x/one/only-in-two/g")).toBe(true);
    expect(mirror.has("/x/one/deep")).toBe(false);
    // A directory swapped with a file: its old subtree paths go, the new ones come.
    vfs.rename("/y/two", "/lone", exchange);
    follow(vfs, cursor, mirror);
    expect(shapeOfFeed(mirror)).toEqual(shapeOfTree(vfs));
    expect(mirror.get("/lone/deep/er/f")?.stat?.type).toBe("file");
  });
});

describe("rename exchange errors leave everything unchanged", () => {
  vfsTest("ENOENT: either name missing, or a missing parent", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "ENOENT", () => vfs.rename("/f", "/missing", exchange));
    expectFails(sql, "ENOENT", () => vfs.rename("/missing", "/f", exchange));
    expectFails(sql, "ENOENT", () => vfs.rename("/f", "/missing/x", exchange));
    expectFails(sql, "ENOENT", () => vfs.rename("/missing/x", "/f", exchange));
  });

  vfsTest(
    "EINVAL: a directory with a path inside it, either way round, also through a symlink",
    (vfs, { sql }) => {
      vfs.mkdir("/a/b/c", { recursive: true });
      vfs.writeFile("/a/b/f", "x");
      vfs.symlink("/a/b", "/l");
      expectFails(sql, "EINVAL", () => vfs.rename("/a", "/a/b", exchange));
      expectFails(sql, "EINVAL", () => vfs.rename("/a/b/c", "/a", exchange));
      expectFails(sql, "EINVAL", () => vfs.rename("/a", "/a/b/f", exchange));
      expectFails(sql, "EINVAL", () => vfs.rename("/l/f", "/a/b", exchange));
      expectFails(sql, "EINVAL", () => vfs.rename("/a/b", "/l/c", exchange));
    },
  );

  vfsTest("EBUSY: the root on either side", (vfs, { sql }) => {
    vfs.mkdir("/d");
    expectFails(sql, "EBUSY", () => vfs.rename("/", "/d", exchange));
    expectFails(sql, "EBUSY", () => vfs.rename("/d", "/", exchange));
  });

  vfsTest("ENOTDIR, ENAMETOOLONG and EINVAL paths", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.writeFile("/g", "y");
    expectFails(sql, "ENOTDIR", () => vfs.rename("/f/x", "/g", exchange));
    expectFails(sql, "ENOTDIR", () => vfs.rename("/f", "/g/x", exchange));
    expectFails(sql, "ENAMETOOLONG", () => vfs.rename("/f", `/${"n".repeat(256)}`, exchange));
    expectFails(sql, "EINVAL", () => vfs.rename("/f", "g", exchange));
    expectFails(sql, "EINVAL", () => vfs.rename("f", "/g", exchange));
    expectFails(sql, "EINVAL", () => vfs.rename("/f", "/g\0", exchange));
  });
});
