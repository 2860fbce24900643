/**
 * The stat op shows every attribute a container's stat(2) shows (nanosecond times, full
 * mode bits, allocated bytes, rdev), utimes accepts exact timespecs, and bad times change nothing.
 */
import { describe, expect, it } from "vitest";
import { createComputer, expectError, expectOk, fsOp, snapshot, writeFile } from "./helpers.ts";

describe("stat attributes", () => {
  it("answers every field, with the ISO times of v1 beside exact timespecs", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "hello");
    const stat = await expectOk(await fsOp(id, { op: "stat", path: "f" }));
    expect(Object.keys(stat).sort()).toEqual(
      [
        "path",
        "type",
        "ino",
        "mode",
        "uid",
        "gid",
        "nlink",
        "size",
        "allocated",
        "rdev",
        "rdevMajor",
        "rdevMinor",
        "mtime",
        "atime",
        "ctime",
        "timespec",
      ].sort(),
    );
    expect(stat).toMatchObject({ type: "file", size: 5, allocated: 5, rdev: 0, rdevMajor: 0, rdevMinor: 0 });
    const timespec = stat.timespec as Record<string, { sec: number; nsec: number }>;
    for (const key of ["atime", "mtime", "ctime"] as const) {
      const t = timespec[key];
      if (t === undefined) throw new Error(`no ${key}`);
      expect(Number.isInteger(t.sec) && Number.isInteger(t.nsec)).toBe(true);
      // The ISO string is the same instant truncated to milliseconds.
      expect(Date.parse(String(stat[key]))).toBe(t.sec * 1000 + Math.floor(t.nsec / 1e6));
    }
  });

  it("utimes with { sec, nsec } keeps nanoseconds, before 1970 and after 2038", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    const cases = [
      { sec: 1234567890, nsec: 123456789 },
      { sec: -1, nsec: 999999999 },
      { sec: -2208988800, nsec: 1 }, // 1900-01-01
      { sec: 2 ** 31, nsec: 500 }, // past the 32-bit time_t end
      { sec: 32503680000, nsec: 999999999 }, // year 3000
    ];
    for (const mtime of cases) {
      const atime = { sec: mtime.sec - 7, nsec: 42 };
      const res = await expectOk(await fsOp(id, { op: "utimes", path: "f", atime, mtime }));
      expect(res.timespec).toMatchObject({ atime, mtime });
      expect(res.mtime).toBe(new Date(mtime.sec * 1000 + Math.floor(mtime.nsec / 1e6)).toISOString());
      const again = await expectOk(await fsOp(id, { op: "stat", path: "f" }));
      expect(again.timespec).toMatchObject({ atime, mtime });
    }
  });

  it("utimes with 'omit' keeps one time and 'now' sets it to the ctime", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    const mtime = { sec: 100, nsec: 7 };
    await expectOk(await fsOp(id, { op: "utimes", path: "f", atime: { sec: 5, nsec: 5 }, mtime }));
    const res = await expectOk(await fsOp(id, { op: "utimes", path: "f", atime: "now", mtime: "omit" }));
    const t = res.timespec as { atime: unknown; mtime: unknown; ctime: unknown };
    expect(t.mtime).toEqual(mtime);
    expect(t.atime).toEqual(t.ctime);
  });

  it("mode shows setuid, setgid and sticky bits", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    await expectOk(await fsOp(id, { op: "mkdir", path: "d" }));
    for (const [path, mode] of [
      ["f", "4755"],
      ["f", "2711"],
      ["f", "7777"],
      ["f", "0000"],
      ["d", "1777"],
      ["d", "3070"],
    ] as const) {
      await expectOk(await fsOp(id, { op: "chmod", path, mode }));
      const stat = await expectOk(await fsOp(id, { op: "stat", path }));
      expect(stat.mode).toBe(mode);
    }
  });

  it("a sparse file past 4 GiB has its size but allocates nothing", async () => {
    const id = await createComputer();
    await writeFile(id, "sparse", "");
    const length = 5 * 2 ** 30 + 3;
    await expectOk(await fsOp(id, { op: "truncate", path: "sparse", length }));
    expect(await expectOk(await fsOp(id, { op: "stat", path: "sparse" }))).toMatchObject({
      size: length,
      allocated: 0,
    });
  });

  it("hard links share the inode and count links", async () => {
    const id = await createComputer();
    await writeFile(id, "a", "same");
    await expectOk(await fsOp(id, { op: "link", existing: "a", path: "b" }));
    const a = await expectOk(await fsOp(id, { op: "stat", path: "a" }));
    const b = await expectOk(await fsOp(id, { op: "stat", path: "b" }));
    expect([a.ino, a.nlink]).toEqual([b.ino, 2]);
  });

  it.each([
    [{ sec: 1, nsec: 1_000_000_000 }],
    [{ sec: 1, nsec: -1 }],
    [{ sec: 1.5, nsec: 0 }],
    [{ sec: "1", nsec: 0 }],
    [{ sec: 1 }],
    [{ sec: 2 ** 60, nsec: 0 }],
    ["yesterday"],
    [null],
    [[1, 2]],
  ])("utimes refuses mtime %j and changes nothing", async (mtime) => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    await expectOk(
      await fsOp(id, { op: "utimes", path: "f", atime: { sec: 9, nsec: 9 }, mtime: { sec: 8, nsec: 8 } }),
    );
    const before = await snapshot(id);
    const stat = await expectOk(await fsOp(id, { op: "stat", path: "f" }));
    await expectError(
      await fsOp(id, { op: "utimes", path: "f", atime: { sec: 1, nsec: 1 }, mtime }),
      400,
      "EINVAL",
    );
    expect(await snapshot(id)).toEqual(before);
    expect(await expectOk(await fsOp(id, { op: "stat", path: "f" }))).toEqual(stat);
  });
});
