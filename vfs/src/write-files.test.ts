/**
 * Vfs.writeFiles: many files' content stored in one operation ends exactly as writeFile of each
 * leaves it; one revision, the feed names every name of every file; a clear error with nothing
 * changed otherwise; and no statements per file but its path walk (and a blob insert per 25).
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { countStatements } from "../test/statements.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { SqlLike } from "./sql.ts";
import { canonical, readState } from "./sync/state.ts";
import { fromMs } from "./time.ts";
import type { Timespec } from "./types.ts";
import type { Vfs } from "./vfs.ts";

/** A time after the test clock's start: the writes a store dates are later than the files' creation. */
const T1: Timespec = { sec: 1_800_000_000, nsec: 123_456_789 };

/** What a path holds, as sync compares it, plus the stored bytes' allocation and nlink. */
function held(vfs: Vfs, sql: SqlLike, path: string): string {
  const state = readState(vfs, sql, path);
  if (!state) return "absent";
  const { allocated, nlink, mtime, ctime } = state.stat;
  return `${canonical(state)} ${allocated} ${nlink} ${mtime.sec}.${mtime.nsec} ${ctime.sec}.${ctime.nsec}`;
}

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe("writeFiles", () => {
  vfsTest("files of every size end as writeFile of each leaves them", (vfs, { sql }) => {
    const contents: [string, Uint8Array | string][] = [
      ["empty", ""],
      ["small", "hello\n"],
      ["chunk", bytes(CHUNK_SIZE, 1)],
      ["big", bytes(2 * CHUNK_SIZE + 5, 2)],
      ["shrunk", "x"],
      ["linked", "shared\n"],
    ];
    for (const root of ["/one", "/many"]) {
      vfs.mkdir(root);
      for (const [name] of contents) vfs.writeFile(`${root}/${name}`, "");
      vfs.writeFile(`${root}/shrunk`, bytes(3 * CHUNK_SIZE, 9));
      vfs.link(`${root}/linked`, `${root}/other-name`);
    }
    vfs.symlink("many/small", "/via");
    for (const [name, data] of contents) vfs.writeFile(`/one/${name}`, data, { mtime: T1 });
    const stats = vfs.writeFiles(
      contents.map(([name, data]) => ({
        path: name === "small" ? "/via" : `/many/${name}`,
        data,
        mtime: T1,
      })),
    );
    expect(stats.map((s) => s.size)).toEqual([0, 6, CHUNK_SIZE, 2 * CHUNK_SIZE + 5, 1, 7]);
    for (const name of [...contents.map(([n]) => n), "other-name"]) {
      expect(held(vfs, sql, `/many/${name}`), name).toBe(held(vfs, sql, `/one/${name}`));
    }
    expect(vfs.readText("/many/other-name")).toBe("shared\n");
  });

  vfsTest("one revision; the feed names every file and every name of a linked one", (vfs) => {
    vfs.mkdir("/d");
    for (const name of ["a", "b", "c"]) vfs.writeFile(`/d/${name}`, "");
    vfs.link("/d/c", "/d/c2");
    const cursor = vfs.changes("0").cursor;
    const rev = vfs.rev();
    vfs.writeFiles([
      { path: "/d/a", data: "1" },
      { path: "/d/b", data: "2" },
      { path: "/d/c", data: "3" },
    ]);
    expect(vfs.rev()).toBe(rev + 1);
    const page = vfs.changes(cursor, { describe: false });
    expect(page.changes.map((c) => [c.path, c.rev])).toEqual([
      ["/d/a", rev + 1],
      ["/d/b", rev + 1],
      ["/d/c", rev + 1],
      ["/d/c2", rev + 1],
    ]);
  });

  vfsTest(
    "a store of writes made before a link keeps the link's ctime, as writeFile, pwrite and truncate do",
    (vfs, { clock }) => {
      const written = fromMs(clock.now());
      clock.advance(5);
      for (const name of ["group", "one", "at", "cut"]) {
        vfs.writeFile(`/${name}`, "");
        vfs.link(`/${name}`, `/${name}-linked`);
      }
      const linked = new Map(["group", "one", "at", "cut"].map((name) => [name, vfs.stat(`/${name}`).ctime]));
      vfs.writeFiles([{ path: "/group-linked", data: "a", mtime: written }]);
      vfs.writeFile("/one", "a", { mtime: written });
      vfs.pwrite("/at", 0, "a", { mtime: written });
      vfs.truncate("/cut", 1, { mtime: written });
      for (const name of ["group", "one", "at", "cut"]) {
        const stat = vfs.stat(`/${name}-linked`);
        expect([name, stat.size, stat.mtime, stat.ctime]).toEqual([name, 1, written, linked.get(name)]);
      }
    },
  );

  vfsTest("without a time, every file gets the operation's time as mtime and ctime", (vfs, { clock }) => {
    vfs.writeFile("/a", "");
    clock.advance(5000);
    const [stat] = vfs.writeFiles([{ path: "/a", data: "new" }]);
    expect(stat?.mtime).toEqual(stat?.ctime);
    expect(vfs.lstat("/a").mtime.sec * 1000).toBeGreaterThanOrEqual(clock.now() - 1000);
  });

  vfsTest(
    "a missing file, a directory, a fifo, a file twice, a bad time: an error, nothing changes",
    (vfs, { sql }) => {
      vfs.mkdir("/d");
      vfs.writeFile("/d/f", "old");
      vfs.link("/d/f", "/d/g");
      vfs.mknod("/d/p", "fifo", 0o644);
      const ok = { path: "/d/f", data: "new" };
      expectFails(sql, "ENOENT", () => vfs.writeFiles([ok, { path: "/d/gone", data: "x" }]));
      expectFails(sql, "ENOENT", () => vfs.writeFiles([ok, { path: "/nowhere/x", data: "x" }]));
      expectFails(sql, "EISDIR", () => vfs.writeFiles([ok, { path: "/d", data: "x" }]));
      expectFails(sql, "EINVAL", () => vfs.writeFiles([ok, { path: "/d/p", data: "x" }]));
      expectFails(sql, "EINVAL", () => vfs.writeFiles([ok, { path: "/d/g", data: "x" }]));
      expectFails(sql, "EINVAL", () =>
        vfs.writeFiles([{ path: "/d/f", data: "x", mtime: { sec: 1, nsec: 1e9 } }]),
      );
      expect(vfs.readText("/d/f")).toBe("old");
    },
  );

  vfsTest("past the quota: ENOSPC, nothing stored", (vfs, { sql }) => {
    vfs.writeFile("/a", "");
    vfs.writeFile("/b", "");
    vfs.setQuota(150);
    expectFails(sql, "ENOSPC", () =>
      vfs.writeFiles([
        { path: "/a", data: bytes(100, 1) },
        { path: "/b", data: bytes(100, 2) },
      ]),
    );
    vfs.writeFiles([{ path: "/a", data: bytes(100, 1) }]);
    expect(vfs.usage().usedBytes).toBe(100);
  });

  vfsTest("no statement per file but its path walk", (vfs, { sql }) => {
    const files = (dir: string, n: number) => {
      vfs.mkdir(dir);
      const paths = Array.from({ length: n }, (_, i) => `${dir}/f${i}`);
      for (const path of paths) vfs.writeFile(path, "");
      return paths;
    };
    // 25 one-chunk files make one blob insert, as one file does.
    const one = files("/one", 1);
    const many = files("/many", 25);
    const cost = (paths: string[]) =>
      countStatements(sql, () => vfs.writeFiles(paths.map((path, i) => ({ path, data: `${path} ${i}` })))) -
      countStatements(sql, () => {
        for (const path of paths) vfs.lstat(path);
      });
    expect(cost(many)).toBe(cost(one));
  });
});
