/** `Vfs.namesOf(ino)`: every path naming an inode, as hard links add, move and drop names. */
import { describe, expect, vfsTest } from "./backend.ts";
import { expectFails } from "./snapshot.ts";

describe("namesOf", () => {
  vfsTest("lists every name of a hard-linked inode, across directories, sorted", (vfs) => {
    vfs.mkdir("/d/e", { recursive: true });
    vfs.writeFile("/z", "one");
    vfs.link("/z", "/d/e/b");
    vfs.link("/z", "/a");
    const ino = vfs.lstat("/z").ino;
    expect(vfs.namesOf(ino)).toEqual(["/a", "/d/e/b", "/z"]);
    expect(vfs.lstat("/a").nlink).toBe(3);
  });

  vfsTest("follows renames of a name and of its directory, and drops unlinked names", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    vfs.link("/d/f", "/g");
    const ino = vfs.lstat("/g").ino;
    vfs.rename("/d", "/moved");
    vfs.rename("/g", "/moved/h");
    expect(vfs.namesOf(ino)).toEqual(["/moved/f", "/moved/h"]);
    vfs.unlink("/moved/f");
    expect(vfs.namesOf(ino)).toEqual(["/moved/h"]);
    vfs.unlink("/moved/h");
    expect(vfs.namesOf(ino)).toEqual([]);
  });

  vfsTest("a single-named file, a directory and the root have one name", (vfs) => {
    vfs.mkdir("/dir");
    vfs.writeFile("/dir/only", "y");
    vfs.symlink("only", "/dir/l");
    expect(vfs.namesOf(vfs.lstat("/dir/only").ino)).toEqual(["/dir/only"]);
    expect(vfs.namesOf(vfs.lstat("/dir/l").ino)).toEqual(["/dir/l"]);
    expect(vfs.namesOf(vfs.lstat("/dir").ino)).toEqual(["/dir"]);
    expect(vfs.namesOf(vfs.lstat("/").ino)).toEqual(["/"]);
  });

  vfsTest("an unknown inode has no names; a non-integer is EINVAL", (vfs, { sql }) => {
    expect(vfs.namesOf(987_654)).toEqual([]);
    expectFails(sql, "EINVAL", () => vfs.namesOf(1.5));
    expectFails(sql, "EINVAL", () => vfs.namesOf(Number.NaN));
  });
});
