/** Hard links (link, nlink, shared inode) and symbolic links (symlink, readlink, realpath, /workspace targets). */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";

describe("link", () => {
  vfsTest("a second name shares the inode, its content and its attributes", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/a", "one");
    vfs.link("/a", "/d/b");
    vfs.link("/d/b", "/c");
    const a = vfs.stat("/a");
    expect(a.nlink).toBe(3);
    expect(vfs.stat("/d/b")).toEqual(a);
    expect(vfs.stat("/c")).toEqual(a);
    vfs.writeFile("/d/b", "two!");
    vfs.chmod("/c", 0o600);
    expect(vfs.readText("/a")).toBe("two!");
    expect(vfs.stat("/a").mode).toBe(0o600);
    expect(vfs.usage().usedBytes).toBe(4);
    vfs.unlink("/a");
    vfs.unlink("/c");
    expect(vfs.stat("/d/b").nlink).toBe(1);
    expect(vfs.readText("/d/b")).toBe("two!");
  });

  vfsTest(
    "a link, an unlink and a rename over a name hand back the file's new row while other names keep it",
    (vfs) => {
      vfs.mkdir("/d");
      vfs.writeFile("/a", "one");
      const touchedFile = () => vfs.touchedNodes().filter((stat) => stat.type !== "dir");
      vfs.link("/a", "/d/b");
      expect(touchedFile()).toEqual([vfs.lstat("/a")]);
      vfs.link("/a", "/c");
      expect(touchedFile()).toEqual([vfs.lstat("/a")]);
      vfs.unlink("/c");
      expect(touchedFile()).toEqual([vfs.lstat("/a")]);
      vfs.writeFile("/x", "new");
      vfs.rename("/x", "/d/b");
      expect(touchedFile()).toEqual([vfs.lstat("/a")]);
      expect(vfs.lstat("/a").nlink).toBe(1);
      // The last name: the file is gone, nothing to hand back.
      vfs.unlink("/a");
      expect(touchedFile()).toEqual([]);
    },
  );

  vfsTest("links a symlink itself and special files", (vfs) => {
    vfs.writeFile("/t", "x");
    vfs.symlink("t", "/l");
    vfs.link("/l", "/l2");
    expect(vfs.lstat("/l2")).toMatchObject({ type: "symlink", ino: vfs.lstat("/l").ino, nlink: 2 });
    expect(vfs.stat("/t").nlink).toBe(1);
    vfs.mknod("/p", "fifo", 0o600);
    vfs.link("/p", "/p2");
    expect(vfs.lstat("/p2").nlink).toBe(2);
  });

  vfsTest("errors: EPERM on a directory, EEXIST, ENOENT, ENOTDIR", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    vfs.writeFile("/g", "y");
    expectFails(sql, "EPERM", () => vfs.link("/d", "/d2"));
    expectFails(sql, "EPERM", () => vfs.link("/", "/root2"));
    expectFails(sql, "EEXIST", () => vfs.link("/f", "/g"));
    expectFails(sql, "EEXIST", () => vfs.link("/f", "/f"));
    expectFails(sql, "EEXIST", () => vfs.link("/f", "/d"));
    expectFails(sql, "ENOENT", () => vfs.link("/missing", "/x"));
    expectFails(sql, "ENOENT", () => vfs.link("/f", "/missing/x"));
    expectFails(sql, "ENOTDIR", () => vfs.link("/f", "/g/x"));
    expectFails(sql, "ENAMETOOLONG", () => vfs.link("/f", `/${"n".repeat(256)}`));
  });
});

describe("symlink and readlink", () => {
  vfsTest("stores the target verbatim; readlink returns it", (vfs) => {
    for (const target of ["rel", "../up/x", "/abs/x", "/workspace/y", "a//b/./c/", "ünï"]) {
      const path = `/l-${vfs.list("/").length}`;
      vfs.symlink(target, path);
      expect(vfs.readlink(path)).toBe(target);
      expect(vfs.lstat(path).size).toBe(new TextEncoder().encode(target).length);
    }
  });

  vfsTest("relative targets resolve from the link's directory, .. included", (vfs) => {
    vfs.mkdir("/a/b", { recursive: true });
    vfs.mkdir("/c");
    vfs.writeFile("/c/f", "cf");
    vfs.writeFile("/a/b/f", "abf");
    vfs.symlink("f", "/a/b/same");
    vfs.symlink("../../c/f", "/a/b/up");
    vfs.symlink("b", "/a/lb");
    expect(vfs.readText("/a/b/same")).toBe("abf");
    expect(vfs.readText("/a/b/up")).toBe("cf");
    expect(vfs.readText("/a/lb/f")).toBe("abf");
    expect(vfs.readText("/a/lb/up")).toBe("cf");
  });

  vfsTest("absolute targets resolve from the vfs root; /workspace maps to the root", (vfs) => {
    vfs.mkdir("/a");
    vfs.writeFile("/a/f", "af");
    vfs.symlink("/a/f", "/abs");
    vfs.symlink("/workspace/a/f", "/ws");
    vfs.symlink("/workspace", "/root-link");
    vfs.symlink("/workspace/", "/root-slash");
    vfs.symlink("/workspace/../a", "/ws-up");
    vfs.symlink("/workspacex", "/not-ws");
    expect(vfs.readText("/abs")).toBe("af");
    expect(vfs.readText("/ws")).toBe("af");
    expect(vfs.stat("/root-link").ino).toBe(1);
    expect(vfs.stat("/root-slash").ino).toBe(1);
    expect(vfs.readText("/root-link/a/f")).toBe("af");
    expect(vfs.readText("/ws-up/f")).toBe("af");
    expect(vfs.exists("/not-ws")).toBe(false);
    vfs.mkdir("/workspacex");
    expect(vfs.stat("/not-ws").type).toBe("dir");
  });

  vfsTest("a dangling link: lstat works, stat fails, writing creates the target", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.symlink("d/new", "/l");
    expectFails(sql, "ENOENT", () => vfs.stat("/l"));
    expectFails(sql, "ENOENT", () => vfs.readFile("/l"));
    vfs.writeFile("/l", "created");
    expect(vfs.readText("/d/new")).toBe("created");
    expect(vfs.lstat("/l").type).toBe("symlink");
    vfs.symlink("missing/new", "/l2");
    expectFails(sql, "ENOENT", () => vfs.writeFile("/l2", "x"));
  });

  vfsTest("errors: EEXIST, ENOENT, ENOTDIR, EINVAL target, readlink EINVAL/ENOENT", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.mkdir("/d");
    vfs.symlink("f", "/l");
    expectFails(sql, "EEXIST", () => vfs.symlink("x", "/f"));
    expectFails(sql, "EEXIST", () => vfs.symlink("x", "/d"));
    expectFails(sql, "EEXIST", () => vfs.symlink("x", "/l"));
    expectFails(sql, "EEXIST", () => vfs.symlink("x", "/"));
    expectFails(sql, "ENOENT", () => vfs.symlink("x", "/missing/l"));
    expectFails(sql, "ENOTDIR", () => vfs.symlink("x", "/f/l"));
    expectFails(sql, "EINVAL", () => vfs.symlink("", "/e"));
    expectFails(sql, "EINVAL", () => vfs.symlink("a\0b", "/e"));
    expectFails(sql, "EINVAL", () => vfs.readlink("/f"));
    expectFails(sql, "EINVAL", () => vfs.readlink("/d"));
    expectFails(sql, "ENOENT", () => vfs.readlink("/missing"));
  });
});

describe("realpath", () => {
  vfsTest("resolves every symlink and dot segment to the canonical path", (vfs) => {
    vfs.mkdir("/a/b", { recursive: true });
    vfs.writeFile("/a/b/f", "x");
    vfs.symlink("a/b", "/lb");
    vfs.symlink("/workspace/lb/f", "/lf");
    vfs.symlink("../..", "/a/b/up");
    expect(vfs.realpath("/")).toBe("/");
    expect(vfs.realpath("/a/./b/../b/f")).toBe("/a/b/f");
    expect(vfs.realpath("/lb")).toBe("/a/b");
    expect(vfs.realpath("/lb/f")).toBe("/a/b/f");
    expect(vfs.realpath("/lf")).toBe("/a/b/f");
    expect(vfs.realpath("/a/b/up")).toBe("/");
    expect(vfs.realpath("/lb/up/a")).toBe("/a");
    expect(vfs.realpath("/../../a")).toBe("/a");
  });

  vfsTest("errors: ENOENT for missing or dangling, ENOTDIR", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("missing", "/dangling");
    expectFails(sql, "ENOENT", () => vfs.realpath("/missing"));
    expectFails(sql, "ENOENT", () => vfs.realpath("/dangling"));
    expectFails(sql, "ENOTDIR", () => vfs.realpath("/f/x"));
  });
});
