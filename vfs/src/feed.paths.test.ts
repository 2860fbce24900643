/**
 * What the change feed reports for operations on many paths at once: a directory rename,
 * rm -r, and changes to hard-linked inodes (every name of the inode).
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { bytes } from "../test/tree.ts";

describe("changes of many paths", () => {
  vfsTest("a directory rename reports every old path deleted and every new path present", (vfs) => {
    vfs.mkdir("/old/sub", { recursive: true });
    vfs.writeFile("/old/f", "1");
    vfs.writeFile("/old/sub/g", "2");
    vfs.mkdir("/dest");
    const cursor = String(vfs.rev());
    vfs.rename("/old", "/dest/new");
    const page = vfs.changes(cursor);
    const deleted = page.changes
      .filter((c) => !c.stat)
      .map((c) => c.path)
      .sort();
    const present = page.changes
      .filter((c) => c.stat)
      .map((c) => c.path)
      .sort();
    expect(deleted).toEqual(["/old", "/old/f", "/old/sub", "/old/sub/g"]);
    expect(present).toEqual(["/", "/dest", "/dest/new", "/dest/new/f", "/dest/new/sub", "/dest/new/sub/g"]);
    const g = page.changes.find((c) => c.path === "/dest/new/sub/g");
    expect(g?.stat).toEqual(vfs.stat("/dest/new/sub/g"));
  });

  vfsTest("rm -r reports every path below as deleted", (vfs) => {
    vfs.mkdir("/t/a", { recursive: true });
    vfs.writeFile("/t/a/f", "x");
    vfs.symlink("a", "/t/l");
    const cursor = String(vfs.rev());
    vfs.rm("/t", { recursive: true });
    expect(vfs.changes(cursor).changes).toEqual([
      { path: "/", rev: Number(cursor) + 1, stat: vfs.stat("/") },
      ...["/t", "/t/a", "/t/a/f", "/t/l"].map((path) => ({ path, rev: Number(cursor) + 1 })),
    ]);
  });

  vfsTest("a change to a hard-linked inode is reported under each of its names", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/a", "x");
    vfs.link("/a", "/d/b");
    vfs.link("/a", "/c");
    const names = ["/a", "/c", "/d/b"];
    const paths = (cursor: string) =>
      vfs
        .changes(cursor)
        .changes.map((c) => c.path)
        .sort();
    let cursor = String(vfs.rev());
    vfs.writeFile("/a", "new content");
    expect(paths(cursor)).toEqual(names);
    for (const op of [
      () => vfs.chmod("/c", 0o600),
      () => vfs.chown("/c", 3, 3),
      () => vfs.utimes("/c", "now", "now"),
      () => vfs.setxattr("/c", "user.k", bytes("v")),
      () => vfs.truncate("/c", 1),
    ]) {
      cursor = String(vfs.rev());
      op();
      expect(paths(cursor)).toEqual(names);
    }
    cursor = String(vfs.rev());
    vfs.link("/a", "/e");
    expect(paths(cursor)).toEqual(["/", "/a", "/c", "/d/b", "/e"]);
    cursor = String(vfs.rev());
    vfs.unlink("/e");
    expect(paths(cursor)).toEqual(["/", ...names, "/e"]);
    const survivor = vfs.changes(cursor).changes.find((c) => c.path === "/d/b");
    expect(survivor?.stat?.nlink).toBe(3);
  });

  vfsTest("a name removed by rm -r or replaced by rename reports the inode's other names", (vfs) => {
    vfs.mkdir("/t");
    vfs.writeFile("/t/f", "x");
    vfs.link("/t/f", "/out");
    vfs.writeFile("/y", "y");
    vfs.link("/y", "/y2");
    vfs.writeFile("/z", "z");
    let cursor = String(vfs.rev());
    vfs.rm("/t", { recursive: true });
    const out = vfs.changes(cursor).changes.find((c) => c.path === "/out");
    expect(out?.stat?.nlink).toBe(1);
    cursor = String(vfs.rev());
    vfs.rename("/z", "/y2");
    const y = vfs.changes(cursor).changes.find((c) => c.path === "/y");
    expect(y?.stat?.nlink).toBe(1);
  });
});
