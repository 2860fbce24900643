/** The facade as a whole: persistence across reopen, opening twice, and the shape of thrown errors. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { richTree } from "../test/fixtures.ts";
import { expectFails } from "../test/snapshot.ts";
import { dumpTree } from "../test/tree.ts";
import { FsError, isFsError, toFsError } from "./errors.ts";
import { SCHEMA_VERSION } from "./schema.ts";

describe("persistence", () => {
  vfsTest("reopen sees the same tree, revision, usage, quota and checkpoints", (vfs, { reopen, sql }) => {
    richTree(vfs);
    vfs.setQuota(50 * 1024 * 1024);
    vfs.checkpoint("cp");
    const tree = dumpTree(vfs, { xattrs: true });
    const again = reopen();
    expect(dumpTree(again, { xattrs: true })).toEqual(tree);
    expect(again.rev()).toBe(vfs.rev());
    expect(again.usage()).toEqual(vfs.usage());
    expect(again.listCheckpoints()).toEqual(vfs.listCheckpoints());
    expect(again.changes("0")).toEqual(vfs.changes("0"));
    expect(sql.exec("SELECT value FROM meta WHERE key = 'schema'")).toEqual([{ value: SCHEMA_VERSION }]);
  });

  vfsTest("opening an existing database changes nothing", (vfs, { reopen, sql }) => {
    vfs.writeFile("/f", "x");
    const rows = sql.exec("SELECT * FROM changes ORDER BY path");
    const rev = vfs.rev();
    reopen();
    reopen();
    expect(vfs.rev()).toBe(rev);
    expect(sql.exec("SELECT * FROM changes ORDER BY path")).toEqual(rows);
  });

  vfsTest("two handles on one database see each other's writes", (vfs, { reopen }) => {
    const other = reopen();
    vfs.writeFile("/a", "from the first");
    expect(other.readText("/a")).toBe("from the first");
    other.rename("/a", "/b");
    expect(vfs.readText("/b")).toBe("from the first");
    expect(vfs.rev()).toBe(other.rev());
  });
});

describe("helpers", () => {
  vfsTest(
    "inode() is lstat for callers that already resolved a path; list() and readText()",
    (vfs, { sql }) => {
      vfs.writeFile("/f", "héllo");
      vfs.symlink("f", "/l");
      expect(vfs.inode("/l")).toEqual(vfs.lstat("/l"));
      expect(vfs.inode("/f")).toEqual(vfs.stat("/l"));
      expect(vfs.list("/").map((e) => e.name)).toEqual(["f", "l"]);
      expect(vfs.readText("/l")).toBe("héllo");
      expectFails(sql, "ENOENT", () => vfs.inode("/missing"));
    },
  );
  vfsTest("statInode() is lstat by inode number, undefined for an inode that is gone or invalid", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "abc");
    vfs.symlink("f", "/d/l");
    for (const path of ["/", "/d", "/d/f", "/d/l"])
      expect(vfs.statInode(vfs.lstat(path).ino)).toEqual(vfs.lstat(path));
    const gone = vfs.lstat("/d/f").ino;
    vfs.unlink("/d/f");
    expect(vfs.statInode(gone)).toBeUndefined();
    expect(vfs.statInode(-1)).toBeUndefined();
    expect(vfs.statInode(1.5)).toBeUndefined();
  });
});

describe("errors", () => {
  vfsTest("are FsErrors with code, syscall, path and a Node-like message", (vfs) => {
    let caught: unknown;
    try {
      vfs.stat("/missing");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FsError);
    expect(caught).toMatchObject({ code: "ENOENT", syscall: "stat", path: "/missing" });
    expect((caught as FsError).message).toBe("ENOENT: no such file or directory, stat '/missing'");
  });

  vfsTest("survive a structured-clone boundary as a recognisable shape", (vfs) => {
    let caught: unknown;
    try {
      vfs.mkdir("/");
    } catch (err) {
      caught = { ...(err as object), message: (err as Error).message };
    }
    expect(isFsError(caught)).toBe(true);
    const rebuilt = toFsError(caught);
    expect(rebuilt).toBeInstanceOf(FsError);
    expect(rebuilt?.code).toBe("EEXIST");
    expect(isFsError({ code: "ENOTACODE" })).toBe(false);
    expect(toFsError(new Error("plain"))).toBeUndefined();
  });
});
