/** Extended attributes: get, set (create/replace flags), list, remove, symlinks, hard links, limits. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { bytes, text } from "../test/tree.ts";

describe("xattrs", () => {
  vfsTest("set, get, list (sorted) and remove, with binary values", (vfs, { clock }) => {
    vfs.writeFile("/f", "x");
    vfs.mkdir("/d");
    const before = vfs.stat("/f");
    clock.advance(1000);
    vfs.setxattr("/f", "user.b", bytes("two"));
    vfs.setxattr("/f", "user.a", new Uint8Array([0, 1, 2, 255]));
    vfs.setxattr("/f", "user.empty", new Uint8Array(0));
    vfs.setxattr("/d", "user.dir", bytes("on a dir"));
    expect(vfs.listxattr("/f")).toEqual(["user.a", "user.b", "user.empty"]);
    expect(vfs.getxattr("/f", "user.a")).toEqual(new Uint8Array([0, 1, 2, 255]));
    expect(vfs.getxattr("/f", "user.empty")).toEqual(new Uint8Array(0));
    expect(text(vfs.getxattr("/d", "user.dir"))).toBe("on a dir");
    const after = vfs.stat("/f");
    expect(after.ctime.sec).toBe(before.ctime.sec + 1);
    expect(after.mtime).toEqual(before.mtime);
    vfs.setxattr("/f", "user.b", bytes("replaced"));
    expect(text(vfs.getxattr("/f", "user.b"))).toBe("replaced");
    vfs.removexattr("/f", "user.b");
    expect(vfs.listxattr("/f")).toEqual(["user.a", "user.empty"]);
  });

  vfsTest("create and replace flags", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.setxattr("/f", "user.k", bytes("1"), { create: true });
    expectFails(sql, "EEXIST", () => vfs.setxattr("/f", "user.k", bytes("2"), { create: true }));
    vfs.setxattr("/f", "user.k", bytes("3"), { replace: true });
    expect(text(vfs.getxattr("/f", "user.k"))).toBe("3");
    expectFails(sql, "ENODATA", () => vfs.setxattr("/f", "user.none", bytes("4"), { replace: true }));
  });

  vfsTest("follow: false works on the symlink itself", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/l");
    vfs.setxattr("/l", "user.target", bytes("t"));
    vfs.setxattr("/l", "user.link", bytes("l"), {}, false);
    expect(vfs.listxattr("/f")).toEqual(["user.target"]);
    expect(vfs.listxattr("/l")).toEqual(["user.target"]);
    expect(vfs.listxattr("/l", false)).toEqual(["user.link"]);
    expect(text(vfs.getxattr("/l", "user.link", false))).toBe("l");
    vfs.removexattr("/l", "user.link", false);
    expect(vfs.listxattr("/l", false)).toEqual([]);
  });

  vfsTest("belong to the inode: shared by hard links, gone with the last name", (vfs) => {
    vfs.writeFile("/a", "x");
    vfs.link("/a", "/b");
    vfs.setxattr("/a", "user.k", bytes("v"));
    expect(text(vfs.getxattr("/b", "user.k"))).toBe("v");
    vfs.unlink("/a");
    vfs.unlink("/b");
    const fresh = vfs.writeFile("/c", "y");
    expect(vfs.listxattr("/c")).toEqual([]);
    expect(fresh.ino).toBeGreaterThan(0);
  });

  vfsTest("survive a rename and are recorded in the change feed", (vfs) => {
    vfs.writeFile("/f", "x");
    const cursor = String(vfs.rev());
    vfs.setxattr("/f", "user.k", bytes("v"));
    expect(vfs.rev()).toBe(Number(cursor) + 1);
    expect(vfs.changes(cursor).changes.map((c) => c.path)).toEqual(["/f"]);
    vfs.rename("/f", "/g");
    expect(text(vfs.getxattr("/g", "user.k"))).toBe("v");
  });

  vfsTest("errors: ENODATA, ENOENT, EINVAL name or value", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.setxattr("/f", "user.k", bytes("v"));
    expectFails(sql, "ENODATA", () => vfs.getxattr("/f", "user.none"));
    expectFails(sql, "ENODATA", () => vfs.removexattr("/f", "user.none"));
    expectFails(sql, "ENOENT", () => vfs.getxattr("/missing", "user.k"));
    expectFails(sql, "ENOENT", () => vfs.setxattr("/missing", "user.k", bytes("v")));
    expectFails(sql, "ENOENT", () => vfs.listxattr("/missing"));
    expectFails(sql, "ENOENT", () => vfs.removexattr("/missing", "user.k"));
    expectFails(sql, "EINVAL", () => vfs.setxattr("/f", "", bytes("v")));
    expectFails(sql, "EINVAL", () => vfs.setxattr("/f", `user.${"n".repeat(251)}`, bytes("v")));
    expectFails(sql, "EINVAL", () => vfs.setxattr("/f", "user.big", new Uint8Array(65537)));
    expectFails(sql, "EINVAL", () => vfs.setxattr("/f", `user.${"é".repeat(126)}`, bytes("v")));
    vfs.setxattr("/f", `user.${"n".repeat(250)}`, new Uint8Array(65536));
    vfs.setxattr("/f", `user.${"é".repeat(125)}`, bytes("v"));
  });
});
