/**
 * Operations run at a time their maker answered (Vfs.at): every time they stamp is that time,
 * and the vfs's own clock goes on after it.
 */
import { describe, expect, vfsTest } from "../test/backend.ts";

const T = { sec: 1_700_000_000, nsec: 123_456_789 };

describe("Vfs.at", () => {
  vfsTest("an unlink of one of two links dates the directory and the file with the given time", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/a", "x");
    vfs.link("/d/a", "/d/b");
    vfs.at(T, () => vfs.unlink("/d/a"));
    expect(vfs.stat("/d")).toMatchObject({ mtime: T, ctime: T });
    expect(vfs.stat("/d/b")).toMatchObject({ nlink: 1, ctime: T });
    // The file's content did not change: its mtime is its write's.
    expect(vfs.stat("/d/b").mtime).not.toEqual(T);
  });

  vfsTest("a rename dates both directories and the node it moves", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/a", "x");
    vfs.at(T, () => vfs.rename("/d/a", "/b"));
    expect(vfs.stat("/d")).toMatchObject({ mtime: T, ctime: T });
    expect(vfs.stat("/")).toMatchObject({ mtime: T, ctime: T });
    expect(vfs.stat("/b").ctime).toEqual(T);
  });

  vfsTest("the clock goes on after it, and a throwing operation leaves it too", (vfs) => {
    expect(() => vfs.at(T, () => vfs.unlink("/missing"))).toThrow();
    vfs.writeFile("/f", "x");
    expect(vfs.stat("/f").mtime).not.toEqual(T);
  });
});

describe("times a maker gave", () => {
  /** A time an hour ahead of the vfs's clock, with nanoseconds its milliseconds cannot show. */
  const ahead = () => ({ sec: Math.floor(Date.now() / 1000) + 3600, nsec: 123_456_789 });
  const after = (a: { sec: number; nsec: number }, b: { sec: number; nsec: number }) =>
    a.sec > b.sec || (a.sec === b.sec && a.nsec > b.nsec);

  vfsTest("a write after a node made at a given time is dated after it", (vfs) => {
    const T = ahead();
    const ino = vfs.reserveInodes(1);
    vfs.mknod("/f", "file", 0o644, 0, { ino, uid: 0, gid: 0, time: T });
    vfs.writeFile("/f", "x");
    const stat = vfs.stat("/f");
    expect(stat.atime).toEqual(T);
    expect(after(stat.mtime, T), `mtime ${JSON.stringify(stat.mtime)} after ${JSON.stringify(T)}`).toBe(true);
  });

  vfsTest("a change after one run at a given time is dated after it", (vfs) => {
    const T = ahead();
    vfs.at(T, () => vfs.mkdir("/d"));
    vfs.writeFile("/d/f", "x");
    expect(after(vfs.stat("/d").mtime, T)).toBe(true);
  });
});
