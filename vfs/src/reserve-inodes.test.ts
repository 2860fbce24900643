/**
 * Inode numbers handed out ahead (Vfs.reserveInodes) and nodes made with one of them
 * (mknod's `made`): no node created any other way takes a reserved number, and a node made
 * with one has exactly the number, owner and times its maker answered, its directory that time.
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { errorCode } from "../test/snapshot.ts";

const T = { sec: 1_700_000_000, nsec: 123_456_789 };

describe("reserved inode numbers", () => {
  vfsTest("a node made with a reserved number has that number, its maker's owner and times", (vfs) => {
    const first = vfs.reserveInodes(4);
    const made = vfs.mknod("/f", "file", 0o640, 0, { ino: first + 2, uid: 1000, gid: 100, time: T });
    expect(made).toMatchObject({
      ino: first + 2,
      type: "file",
      mode: 0o640,
      uid: 1000,
      gid: 100,
      nlink: 1,
      size: 0,
    });
    expect(vfs.stat("/f")).toMatchObject({ ino: first + 2, atime: T, mtime: T, ctime: T });
    // Its directory changed when it was made.
    expect(vfs.stat("/")).toMatchObject({ mtime: T, ctime: T });
  });

  vfsTest("a directory made with a reserved number has that number, its maker's owner and times", (vfs) => {
    const first = vfs.reserveInodes(2);
    vfs.mkdir("/d", { mode: 0o750 }, { ino: first + 1, uid: 1000, gid: 100, time: T });
    expect(vfs.stat("/d")).toMatchObject({
      ino: first + 1,
      type: "dir",
      mode: 0o750,
      uid: 1000,
      gid: 100,
      nlink: 2,
    });
    expect(vfs.stat("/d")).toMatchObject({ atime: T, mtime: T, ctime: T });
    expect(vfs.stat("/")).toMatchObject({ mtime: T, ctime: T, nlink: 3 });
    // Made with its number, it still refuses a name taken, as any mkdir.
    expect(() => vfs.mkdir("/d", {}, { ino: first, uid: 0, gid: 0, time: T })).toThrow(/EEXIST/);
  });

  vfsTest("nodes created any other way skip every reserved number", (vfs) => {
    const first = vfs.reserveInodes(8);
    vfs.mkdir("/d");
    vfs.writeFile("/d/a", "a");
    vfs.symlink("a", "/d/s");
    vfs.createNodes([
      { path: "/n", type: "file", mode: 0o644, uid: 0, gid: 0, atime: T, mtime: T },
      { path: "/m", type: "dir", mode: 0o755, uid: 0, gid: 0, atime: T, mtime: T },
    ]);
    const taken = ["/d", "/d/a", "/d/s", "/n", "/m"].map((path) => vfs.lstat(path).ino);
    for (const ino of taken) expect(ino < first || ino >= first + 8).toBe(true);
    expect(new Set(taken).size).toBe(taken.length);
    // The reserved numbers are all still free to make nodes with.
    for (let i = 0; i < 8; i++)
      vfs.mknod(`/r${i}`, "file", 0o644, 0, { ino: first + i, uid: 0, gid: 0, time: T });
    expect(vfs.stat("/r7").ino).toBe(first + 7);
  });

  vfsTest("a second reservation follows the first and the nodes made since", (vfs) => {
    const first = vfs.reserveInodes(3);
    vfs.mkdir("/d");
    const second = vfs.reserveInodes(3);
    expect(second).toBeGreaterThanOrEqual(first + 3);
    expect(second).toBeGreaterThan(vfs.stat("/d").ino);
  });

  vfsTest("a made node over an existing name is EEXIST and changes nothing", (vfs) => {
    const first = vfs.reserveInodes(2);
    vfs.writeFile("/f", "x");
    const before = vfs.stat("/f");
    expect(errorCode(() => vfs.mknod("/f", "file", 0o644, 0, { ino: first, uid: 0, gid: 0, time: T }))).toBe(
      "EEXIST",
    );
    expect(vfs.stat("/f")).toEqual(before);
    vfs.mknod("/g", "file", 0o644, 0, { ino: first, uid: 0, gid: 0, time: T });
    expect(vfs.stat("/g").ino).toBe(first);
  });
});
