/** stat, lstat, exists, readdir (types, sizes, paging), chmod, chown and utimes. */
import { describe, expect, TEST_EPOCH_MS, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { statementsOf } from "../test/statements.ts";

const EPOCH_SEC = TEST_EPOCH_MS / 1000;

describe("stat and lstat", () => {
  vfsTest("the root is an empty directory owned by root", (vfs) => {
    const st = vfs.stat("/");
    expect(st).toMatchObject({
      ino: 1,
      type: "dir",
      mode: 0o755,
      uid: 0,
      gid: 0,
      nlink: 2,
      size: 0,
      rdev: 0,
    });
    expect(vfs.list("/")).toEqual([]);
  });

  vfsTest("a file has its type, size, mode, link count and allocation", (vfs) => {
    const written = vfs.writeFile("/f.txt", "hello");
    const st = vfs.stat("/f.txt");
    expect(st).toEqual(written);
    expect(st).toMatchObject({ type: "file", size: 5, allocated: 5, mode: 0o644, nlink: 1, uid: 0, gid: 0 });
    expect(st.mtime.sec).toBe(EPOCH_SEC);
  });

  vfsTest("a directory counts its subdirectories in nlink", (vfs) => {
    vfs.mkdir("/d");
    vfs.mkdir("/d/a");
    vfs.mkdir("/d/b");
    vfs.writeFile("/d/f", "x");
    expect(vfs.stat("/d").nlink).toBe(4);
    expect(vfs.stat("/").nlink).toBe(3);
  });

  vfsTest("stat follows symlinks, lstat describes the link itself", (vfs) => {
    vfs.writeFile("/target", "12345678");
    vfs.symlink("target", "/link");
    expect(vfs.stat("/link")).toEqual(vfs.stat("/target"));
    const link = vfs.lstat("/link");
    expect(link.type).toBe("symlink");
    expect(link.size).toBe("target".length);
    expect(link.mode).toBe(0o777);
    expect(link.ino).not.toBe(vfs.stat("/target").ino);
  });

  vfsTest("stat and lstat report special files with rdev", (vfs) => {
    vfs.mknod("/fifo", "fifo", 0o600);
    vfs.mknod("/sock", "socket", 0o755);
    vfs.mknod("/null", "char", 0o666, 0x103);
    vfs.mknod("/sda", "block", 0o660, 0x800);
    expect(vfs.lstat("/fifo")).toMatchObject({ type: "fifo", mode: 0o600, rdev: 0 });
    expect(vfs.lstat("/sock")).toMatchObject({ type: "socket", mode: 0o755 });
    expect(vfs.stat("/null")).toMatchObject({ type: "char", rdev: 0x103 });
    expect(vfs.stat("/sda")).toMatchObject({ type: "block", rdev: 0x800 });
  });

  vfsTest("errors: ENOENT, ENOTDIR through a file, dangling symlink", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("/nowhere", "/dangling");
    expectFails(sql, "ENOENT", () => vfs.stat("/missing"));
    expectFails(sql, "ENOENT", () => vfs.lstat("/missing/deeper"));
    expectFails(sql, "ENOTDIR", () => vfs.stat("/f/x"));
    expectFails(sql, "ENOTDIR", () => vfs.lstat("/f/x"));
    expectFails(sql, "ENOENT", () => vfs.stat("/dangling"));
    expect(vfs.lstat("/dangling").type).toBe("symlink");
  });
});

describe("exists", () => {
  vfsTest("is true for what resolves and false (never throws) otherwise", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    vfs.symlink("d/f", "/good");
    vfs.symlink("missing", "/bad");
    expect(vfs.exists("/")).toBe(true);
    expect(vfs.exists("/d")).toBe(true);
    expect(vfs.exists("/d/f")).toBe(true);
    expect(vfs.exists("/good")).toBe(true);
    expect(vfs.exists("/bad")).toBe(false);
    expect(vfs.exists("/missing")).toBe(false);
    expect(vfs.exists("/d/f/under-a-file")).toBe(false);
    expect(vfs.exists("relative")).toBe(false);
    expect(vfs.exists("/nul\0")).toBe(false);
  });
});

describe("readdir", () => {
  vfsTest("lists names sorted by bytes with type, size, ino, mode and mtime; no . or ..", (vfs) => {
    vfs.mkdir("/d", { mode: 0o700 });
    vfs.writeFile("/b.txt", "four");
    vfs.symlink("b.txt", "/a-link");
    vfs.mknod("/fifo", "fifo", 0o644);
    vfs.writeFile("/é", "");
    vfs.writeFile("/Z", "");
    const entries = vfs.readdir("/").entries;
    expect(entries.map((e) => e.name)).toEqual(["Z", "a-link", "b.txt", "d", "fifo", "é"]);
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    expect(byName["b.txt"]).toMatchObject({
      type: "file",
      size: 4,
      mode: 0o644,
      ino: vfs.stat("/b.txt").ino,
    });
    expect(byName["a-link"]).toMatchObject({ type: "symlink", size: 5 });
    expect(byName.d).toMatchObject({ type: "dir", mode: 0o700 });
    expect(byName.fifo?.type).toBe("fifo");
    expect(byName["b.txt"]?.mtime).toEqual(vfs.stat("/b.txt").mtime);
    expect(vfs.readdir("/").next).toBeUndefined();
  });

  vfsTest("pages with after/limit cover every entry once", (vfs) => {
    const names = Array.from({ length: 23 }, (_, i) => `f${String(i).padStart(2, "0")}`);
    for (const name of names) vfs.writeFile(`/${name}`, name);
    for (const limit of [1, 5, 23, 100]) {
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const page = vfs.readdir("/", after === undefined ? { limit } : { after, limit });
        pages++;
        expect(page.entries.length).toBeLessThanOrEqual(limit);
        seen.push(...page.entries.map((e) => e.name));
        if (page.next === undefined) break;
        expect(page.next).toBe(page.entries[page.entries.length - 1]?.name);
        after = page.next;
      }
      expect(seen).toEqual(names);
      expect(pages).toBe(Math.max(1, Math.ceil(names.length / limit)));
    }
  });

  vfsTest("a whole listing binds no LIMIT, which SQLite would prepare again at every run", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/x", "");
    const whole = statementsOf(sql, () => expect(vfs.list("/d").map((e) => e.name)).toEqual(["x"]));
    expect(whole.filter((query) => query.includes("LIMIT ?"))).toEqual([]);
    const paged = statementsOf(sql, () => vfs.readdir("/d", { limit: 1 }));
    expect(paged.filter((query) => query.includes("LIMIT ?"))).toHaveLength(1);
  });

  vfsTest("after need not be an existing name", (vfs) => {
    for (const name of ["a", "c", "e"]) vfs.writeFile(`/${name}`, "");
    expect(vfs.readdir("/", { after: "b" }).entries.map((e) => e.name)).toEqual(["c", "e"]);
    expect(vfs.readdir("/", { after: "z" }).entries).toEqual([]);
  });

  vfsTest("follows a symlink to a directory", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/x", "");
    vfs.symlink("/d", "/l");
    expect(vfs.list("/l").map((e) => e.name)).toEqual(["x"]);
  });

  vfsTest("errors: ENOENT, ENOTDIR, EINVAL limit", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/lf");
    expectFails(sql, "ENOENT", () => vfs.readdir("/missing"));
    expectFails(sql, "ENOTDIR", () => vfs.readdir("/f"));
    expectFails(sql, "ENOTDIR", () => vfs.readdir("/lf"));
    expectFails(sql, "EINVAL", () => vfs.readdir("/", { limit: 0 }));
    expectFails(sql, "EINVAL", () => vfs.readdir("/", { limit: 1.5 }));
  });
});

describe("chmod", () => {
  vfsTest("sets permission and setuid/setgid/sticky bits, changes ctime only", (vfs, { clock }) => {
    vfs.writeFile("/f", "x");
    vfs.mkdir("/d");
    const before = vfs.stat("/f");
    clock.advance(1000);
    vfs.chmod("/f", 0o4755);
    vfs.chmod("/d", 0o1777);
    const after = vfs.stat("/f");
    expect(after.mode).toBe(0o4755);
    expect(vfs.stat("/d").mode).toBe(0o1777);
    expect(after.mtime).toEqual(before.mtime);
    expect(after.ctime.sec).toBe(before.ctime.sec + 1);
    vfs.chmod("/f", 0);
    expect(vfs.stat("/f").mode).toBe(0);
  });

  vfsTest("follows symlinks", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/l");
    vfs.chmod("/l", 0o600);
    expect(vfs.stat("/f").mode).toBe(0o600);
    expect(vfs.lstat("/l").mode).toBe(0o777);
  });

  vfsTest("errors: EINVAL mode, ENOENT", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "EINVAL", () => vfs.chmod("/f", 0o10000));
    expectFails(sql, "EINVAL", () => vfs.chmod("/f", -1));
    expectFails(sql, "EINVAL", () => vfs.chmod("/f", 1.5));
    expectFails(sql, "ENOENT", () => vfs.chmod("/missing", 0o644));
  });
});

describe("chown", () => {
  vfsTest("sets uid and gid; -1 keeps an id", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.chown("/f", 1000, 1001);
    expect(vfs.stat("/f")).toMatchObject({ uid: 1000, gid: 1001 });
    vfs.chown("/f", -1, 50);
    expect(vfs.stat("/f")).toMatchObject({ uid: 1000, gid: 50 });
    vfs.chown("/f", 7, -1);
    expect(vfs.stat("/f")).toMatchObject({ uid: 7, gid: 50 });
    vfs.chown("/f", 0xffffffff, 0);
    expect(vfs.stat("/f").uid).toBe(0xffffffff);
  });

  vfsTest("clears setuid/setgid on files but not on directories", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.mkdir("/d");
    vfs.chmod("/f", 0o6755);
    vfs.chmod("/d", 0o2775);
    vfs.chown("/f", 1, 1);
    vfs.chown("/d", 1, 1);
    expect(vfs.stat("/f").mode).toBe(0o755);
    expect(vfs.stat("/d").mode).toBe(0o2775);
  });

  vfsTest("keeps setgid without group-exec (the mandatory-locking mark) through chown", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.chmod("/f", 0o6745);
    vfs.chown("/f", 1, 1);
    expect(vfs.stat("/f").mode).toBe(0o2745);
    vfs.chmod("/f", 0o2710);
    vfs.chown("/f", -1, -1);
    expect(vfs.stat("/f").mode).toBe(0o710);
  });

  vfsTest("follows symlinks unless follow is false (lchown)", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/l");
    vfs.chown("/l", 5, 6);
    expect(vfs.stat("/f")).toMatchObject({ uid: 5, gid: 6 });
    expect(vfs.lstat("/l")).toMatchObject({ uid: 0, gid: 0 });
    vfs.chown("/l", 8, 9, false);
    expect(vfs.lstat("/l")).toMatchObject({ uid: 8, gid: 9 });
    expect(vfs.stat("/f")).toMatchObject({ uid: 5, gid: 6 });
  });

  vfsTest("errors: EINVAL ids, ENOENT", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "EINVAL", () => vfs.chown("/f", -2, 0));
    expectFails(sql, "EINVAL", () => vfs.chown("/f", 0, 2 ** 32));
    expectFails(sql, "EINVAL", () => vfs.chown("/f", 0.5, 0));
    expectFails(sql, "ENOENT", () => vfs.chown("/missing", 1, 1));
    expectFails(sql, "ENOENT", () => vfs.chown("/missing", 1, 1, false));
  });
});

describe("utimes", () => {
  vfsTest("keeps nanosecond precision", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.utimes("/f", { sec: 1_700_000_000, nsec: 123_456_789 }, { sec: 1_600_000_000, nsec: 999_999_999 });
    const st = vfs.stat("/f");
    expect(st.atime).toEqual({ sec: 1_700_000_000, nsec: 123_456_789 });
    expect(st.mtime).toEqual({ sec: 1_600_000_000, nsec: 999_999_999 });
  });

  vfsTest("stores times before 1970 and after 2038", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.utimes("/f", { sec: -1_000_000_000, nsec: 1 }, { sec: 2 ** 31 + 10, nsec: 5 });
    expect(vfs.stat("/f").atime).toEqual({ sec: -1_000_000_000, nsec: 1 });
    expect(vfs.stat("/f").mtime).toEqual({ sec: 2 ** 31 + 10, nsec: 5 });
    vfs.utimes("/f", { sec: -(2 ** 40), nsec: 0 }, { sec: 2 ** 40, nsec: 0 });
    expect(vfs.stat("/f").atime.sec).toBe(-(2 ** 40));
    expect(vfs.stat("/f").mtime.sec).toBe(2 ** 40);
  });

  vfsTest(
    "by inode, many at once: the times, one revision and a change record of each path (every name of a linked file), without walking them; ENOENT changes nothing",
    (vfs, { sql }) => {
      vfs.mkdir("/d");
      vfs.mkdir("/d/e");
      vfs.writeFile("/f", "x");
      vfs.link("/f", "/d/g");
      const [d, e, f] = ["/d", "/d/e", "/f"].map((path) => vfs.lstat(path).ino) as [number, number, number];
      const rev = vfs.rev();
      vfs.utimesInodes([
        { ino: d, path: "/d", atime: { sec: 5, nsec: 6 }, mtime: { sec: 7, nsec: 8 } },
        { ino: e, path: "/d/e", atime: { sec: 1, nsec: 2 }, mtime: { sec: 3, nsec: 4 } },
        { ino: f, path: "/f", atime: { sec: 9, nsec: 0 }, mtime: { sec: 10, nsec: 11 } },
      ]);
      const times = (path: string) => {
        const st = vfs.lstat(path);
        return { atime: st.atime, mtime: st.mtime };
      };
      expect(times("/d")).toEqual({ atime: { sec: 5, nsec: 6 }, mtime: { sec: 7, nsec: 8 } });
      expect(times("/d/e")).toEqual({ atime: { sec: 1, nsec: 2 }, mtime: { sec: 3, nsec: 4 } });
      expect(times("/d/g")).toEqual({ atime: { sec: 9, nsec: 0 }, mtime: { sec: 10, nsec: 11 } });
      expect(vfs.rev()).toBe(rev + 1);
      expect(
        vfs
          .changes(String(rev))
          .changes.map((c) => c.path)
          .sort(),
      ).toEqual(["/d", "/d/e", "/d/g", "/f"]);
      expectFails(sql, "ENOENT", () =>
        vfs.utimesInodes([
          { ino: d, path: "/d", atime: { sec: 1, nsec: 1 }, mtime: { sec: 1, nsec: 1 } },
          { ino: 999_999, path: "/nothing", atime: { sec: 1, nsec: 1 }, mtime: { sec: 1, nsec: 1 } },
        ]),
      );
      expectFails(sql, "EINVAL", () =>
        vfs.utimesInodes([{ ino: d, path: "/d", atime: { sec: 1, nsec: 2e9 }, mtime: { sec: 1, nsec: 1 } }]),
      );
    },
  );

  vfsTest("refuses times a Date cannot represent, changing nothing", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", { sec: 2 ** 53, nsec: 0 }, "omit"));
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", "omit", 2 ** 64));
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", { sec: -8_640_000_000_001, nsec: 0 }, "omit"));
    vfs.utimes("/f", { sec: 8_640_000_000_000, nsec: 0 }, { sec: -8_640_000_000_000, nsec: 0 });
    expect(vfs.stat("/f").mtime.sec).toBe(-8_640_000_000_000);
  });

  vfsTest("accepts milliseconds, including negative and fractional ones", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.utimes("/f", -1500, 4_102_444_800_000.25);
    expect(vfs.stat("/f").atime).toEqual({ sec: -2, nsec: 500_000_000 });
    expect(vfs.stat("/f").mtime).toEqual({ sec: 4_102_444_800, nsec: 250_000 });
  });

  vfsTest('"now" uses the clock, "omit" leaves a time alone, ctime always moves', (vfs, { clock }) => {
    vfs.writeFile("/f", "x");
    vfs.utimes("/f", { sec: 10, nsec: 0 }, { sec: 20, nsec: 0 });
    clock.set(Date.UTC(2030, 0, 1));
    vfs.utimes("/f", "now", "omit");
    let st = vfs.stat("/f");
    expect(st.atime).toEqual({ sec: Date.UTC(2030, 0, 1) / 1000, nsec: 0 });
    expect(st.mtime).toEqual({ sec: 20, nsec: 0 });
    expect(st.ctime).toEqual(st.atime);
    clock.advance(2000);
    vfs.utimes("/f", "omit", "now");
    st = vfs.stat("/f");
    expect(st.atime).toEqual({ sec: Date.UTC(2030, 0, 1) / 1000, nsec: 0 });
    expect(st.mtime).toEqual({ sec: Date.UTC(2030, 0, 1) / 1000 + 2, nsec: 0 });
  });

  vfsTest("follows symlinks unless follow is false", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/l");
    vfs.utimes("/l", { sec: 1, nsec: 0 }, { sec: 2, nsec: 0 });
    expect(vfs.stat("/f").mtime).toEqual({ sec: 2, nsec: 0 });
    vfs.utimes("/l", { sec: 3, nsec: 0 }, { sec: 4, nsec: 0 }, false);
    expect(vfs.lstat("/l").mtime).toEqual({ sec: 4, nsec: 0 });
    expect(vfs.stat("/f").mtime).toEqual({ sec: 2, nsec: 0 });
  });

  vfsTest("errors: EINVAL timespecs, ENOENT", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", { sec: 0, nsec: 1_000_000_000 }, "omit"));
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", "omit", { sec: 0, nsec: -1 }));
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", { sec: 0.5, nsec: 0 }, "now"));
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", Number.NaN, "now"));
    expectFails(sql, "EINVAL", () => vfs.utimes("/f", "now", Number.POSITIVE_INFINITY));
    expectFails(sql, "ENOENT", () => vfs.utimes("/missing", "now", "now"));
  });
});

describe("recordAccess", () => {
  vfsTest("stores only the atime: ctime, mtime, revision and change feed stay", (vfs) => {
    vfs.writeFile("/f", "data");
    const before = vfs.lstat("/f");
    const rev = vfs.rev();
    const feed = () => vfs.changes("0").changes.map(({ path, rev }) => ({ path, rev }));
    const entries = feed();
    vfs.recordAccess(before.ino, { sec: 1234, nsec: 5678 });
    const after = vfs.lstat("/f");
    expect(after.atime).toEqual({ sec: 1234, nsec: 5678 });
    expect({ ...after, atime: before.atime }).toEqual(before);
    expect(vfs.rev()).toBe(rev);
    expect(feed()).toEqual(entries);
  });

  vfsTest(
    "an unknown inode is ENOENT, a bad inode or timespec EINVAL, and nothing changes",
    (vfs, { sql }) => {
      vfs.writeFile("/f", "data");
      const { ino } = vfs.lstat("/f");
      expectFails(sql, "ENOENT", () => vfs.recordAccess(ino + 1000, { sec: 1, nsec: 0 }));
      expectFails(sql, "EINVAL", () => vfs.recordAccess(1.5, { sec: 1, nsec: 0 }));
      expectFails(sql, "EINVAL", () => vfs.recordAccess(ino, { sec: 1, nsec: 1_000_000_000 }));
      expectFails(sql, "EINVAL", () => vfs.recordAccess(ino, { sec: 1.5, nsec: 0 }));
    },
  );
});
