/** mkdir (plain and recursive), rmdir, unlink, rm (recursive, force) and mknod, with every error case. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { statementsOf } from "../test/statements.ts";

describe("mkdir", () => {
  vfsTest("creates a directory with the default or given mode and bumps the parent", (vfs, { clock }) => {
    const parentBefore = vfs.stat("/");
    clock.advance(5000);
    vfs.mkdir("/a");
    vfs.mkdir("/a/b", { mode: 0o700 });
    expect(vfs.stat("/a")).toMatchObject({ type: "dir", mode: 0o755, nlink: 3, size: 0 });
    expect(vfs.stat("/a/b")).toMatchObject({ type: "dir", mode: 0o700, nlink: 2 });
    const parent = vfs.stat("/");
    expect(parent.nlink).toBe(parentBefore.nlink + 1);
    expect(parent.mtime.sec).toBe(parentBefore.mtime.sec + 5);
  });

  vfsTest("recursive creates every missing parent and accepts an existing directory", (vfs) => {
    vfs.mkdir("/a/b/c", { recursive: true });
    expect(vfs.stat("/a/b/c").type).toBe("dir");
    expect(vfs.stat("/a").nlink).toBe(3);
    const rev = vfs.rev();
    vfs.mkdir("/a/b/c", { recursive: true });
    vfs.mkdir("/a", { recursive: true });
    vfs.mkdir("/", { recursive: true });
    expect(vfs.rev()).toBe(rev);
    vfs.mkdir("/a/b/d/e", { recursive: true, mode: 0o711 });
    expect(vfs.stat("/a/b/d").mode).toBe(0o711);
    expect(vfs.stat("/a/b/d/e").mode).toBe(0o711);
  });

  vfsTest("recursive creates through a symlinked directory", (vfs) => {
    vfs.mkdir("/real");
    vfs.symlink("real", "/l");
    vfs.mkdir("/l/x/y", { recursive: true });
    expect(vfs.stat("/real/x/y").type).toBe("dir");
    expect(vfs.lstat("/l").type).toBe("symlink");
  });

  vfsTest("errors: EEXIST, ENOENT, ENOTDIR, EINVAL", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    vfs.symlink("d", "/ld");
    vfs.symlink("nowhere", "/dangling");
    expectFails(sql, "EEXIST", () => vfs.mkdir("/d"));
    expectFails(sql, "EEXIST", () => vfs.mkdir("/f"));
    expectFails(sql, "EEXIST", () => vfs.mkdir("/ld"));
    expectFails(sql, "EEXIST", () => vfs.mkdir("/dangling"));
    expectFails(sql, "EEXIST", () => vfs.mkdir("/"));
    expectFails(sql, "EEXIST", () => vfs.mkdir("/f", { recursive: true }));
    expectFails(sql, "ENOENT", () => vfs.mkdir("/missing/x"));
    expectFails(sql, "ENOENT", () => vfs.mkdir("/d/missing/x"));
    expectFails(sql, "ENOTDIR", () => vfs.mkdir("/f/x"));
    expectFails(sql, "ENOTDIR", () => vfs.mkdir("/f/x", { recursive: true }));
    expectFails(sql, "ENOTDIR", () => vfs.mkdir("/d/../f/x/y", { recursive: true }));
    expectFails(sql, "EINVAL", () => vfs.mkdir("/m", { mode: 0o10000 }));
    expectFails(sql, "EINVAL", () => vfs.mkdir("/m", { mode: -1, recursive: true }));
  });

  vfsTest("recursive refuses a dangling symlink instead of creating its target", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.symlink("nowhere", "/d/dangling");
    expectFails(sql, "EEXIST", () => vfs.mkdir("/d/dangling", { recursive: true }));
    expectFails(sql, "EEXIST", () => vfs.mkdir("/d/dangling/x", { recursive: true }));
    expect(vfs.exists("/d/nowhere")).toBe(false);
  });

  vfsTest("a failing recursive mkdir creates nothing, not even the parents it got to", (vfs, { sql }) => {
    vfs.mkdir("/a");
    vfs.writeFile("/a/f", "x");
    expectFails(sql, "ENOTDIR", () => vfs.mkdir("/a/b/../f/c", { recursive: true }));
    expectFails(sql, "ENAMETOOLONG", () => vfs.mkdir(`/a/new/${"n".repeat(256)}`, { recursive: true }));
    expect(vfs.exists("/a/new")).toBe(false);
  });
});

describe("rmdir", () => {
  vfsTest("removes an empty directory and drops the parent's link count", (vfs) => {
    vfs.mkdir("/a/b", { recursive: true });
    vfs.rmdir("/a/b");
    expect(vfs.exists("/a/b")).toBe(false);
    expect(vfs.stat("/a").nlink).toBe(2);
    vfs.rmdir("/a");
    expect(vfs.list("/")).toEqual([]);
    expect(vfs.stat("/").nlink).toBe(2);
  });

  vfsTest("errors: ENOTEMPTY, ENOTDIR, EBUSY on the root, ENOENT", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    vfs.mkdir("/e");
    vfs.symlink("e", "/le");
    expectFails(sql, "ENOTEMPTY", () => vfs.rmdir("/d"));
    expectFails(sql, "ENOTDIR", () => vfs.rmdir("/d/f"));
    expectFails(sql, "ENOTDIR", () => vfs.rmdir("/le"));
    expectFails(sql, "EBUSY", () => vfs.rmdir("/"));
    expectFails(sql, "ENOENT", () => vfs.rmdir("/missing"));
    expectFails(sql, "ENOENT", () => vfs.rmdir("/missing/x"));
    expectFails(sql, "ENOTDIR", () => vfs.rmdir("/d/f/x"));
  });
});

describe("unlink", () => {
  vfsTest("removes a file, a symlink (not its target) and special files", (vfs) => {
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/l");
    vfs.mknod("/p", "fifo", 0o644);
    vfs.unlink("/l");
    expect(vfs.exists("/f")).toBe(true);
    vfs.unlink("/f");
    vfs.unlink("/p");
    expect(vfs.list("/")).toEqual([]);
    expect(vfs.usage().usedBytes).toBe(0);
  });

  vfsTest("dropping one of two hard links keeps the content", (vfs) => {
    vfs.writeFile("/a", "shared");
    vfs.link("/a", "/b");
    vfs.unlink("/a");
    expect(vfs.stat("/b").nlink).toBe(1);
    expect(vfs.readText("/b")).toBe("shared");
    expect(vfs.usage().usedBytes).toBe(6);
  });

  vfsTest(
    "reads the dropped file's row once, in its path walk (so does a rename over a file)",
    (vfs, { sql }) => {
      for (const name of ["a", "b", "c", "d"]) vfs.writeFile(`/${name}`, name);
      vfs.link("/c", "/c2");
      const rowReads = (fn: () => void) =>
        statementsOf(sql, fn).filter((query) => /^SELECT .* FROM nodes WHERE ino = \?/.test(query));
      expect(rowReads(() => vfs.unlink("/a"))).toEqual([]);
      expect(rowReads(() => vfs.unlink("/c2"))).toEqual([]);
      expect(rowReads(() => vfs.rename("/b", "/d"))).toEqual([]);
      expect(vfs.list("/").map((e) => e.name)).toEqual(["c", "d"]);
      expect([vfs.readText("/d"), vfs.stat("/c").nlink]).toEqual(["b", 1]);
    },
  );

  vfsTest("errors: EISDIR, ENOENT, ENOTDIR", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    expectFails(sql, "EISDIR", () => vfs.unlink("/d"));
    expectFails(sql, "EISDIR", () => vfs.unlink("/"));
    expectFails(sql, "ENOENT", () => vfs.unlink("/missing"));
    expectFails(sql, "ENOTDIR", () => vfs.unlink("/f/x"));
  });
});

describe("rm", () => {
  vfsTest("removes a file and, with recursive, a whole tree and its bytes", (vfs) => {
    vfs.writeFile("/keep", "k");
    vfs.writeFile("/f", "x");
    vfs.rm("/f");
    expect(vfs.exists("/f")).toBe(false);
    vfs.mkdir("/t/a/b", { recursive: true });
    vfs.writeFile("/t/a/b/deep", "0123456789");
    vfs.writeFile("/t/top", "abc");
    vfs.symlink("/keep", "/t/link");
    vfs.mknod("/t/a/fifo", "fifo", 0o600);
    vfs.rm("/t", { recursive: true });
    expect(vfs.list("/").map((e) => e.name)).toEqual(["keep"]);
    expect(vfs.stat("/").nlink).toBe(2);
    expect(vfs.usage().usedBytes).toBe(1);
    expect(vfs.readText("/keep")).toBe("k");
  });

  vfsTest("recursive removes an empty directory; a symlink to a directory goes alone", (vfs) => {
    vfs.mkdir("/e");
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    vfs.symlink("d", "/ld");
    vfs.rm("/e", { recursive: true });
    vfs.rm("/ld", { recursive: true });
    expect(vfs.list("/").map((e) => e.name)).toEqual(["d"]);
    expect(vfs.readText("/d/f")).toBe("x");
  });

  vfsTest("hard links inside and outside the removed tree keep correct counts", (vfs) => {
    vfs.mkdir("/t");
    vfs.writeFile("/t/a", "data");
    vfs.link("/t/a", "/t/b");
    vfs.link("/t/a", "/out");
    vfs.writeFile("/t/only", "gone");
    vfs.link("/t/only", "/t/only2");
    vfs.rm("/t", { recursive: true });
    expect(vfs.stat("/out").nlink).toBe(1);
    expect(vfs.readText("/out")).toBe("data");
    expect(vfs.usage().usedBytes).toBe(4);
  });

  vfsTest("force ignores a missing path, even under a missing parent", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    const rev = vfs.rev();
    vfs.rm("/missing", { force: true });
    vfs.rm("/missing/deeper", { force: true, recursive: true });
    expect(vfs.rev()).toBe(rev);
    expectFails(sql, "ENOTDIR", () => vfs.rm("/f/x", { force: true }));
  });

  vfsTest("errors: EISDIR without recursive, ENOENT without force, EBUSY on the root", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.mkdir("/full");
    vfs.writeFile("/full/f", "x");
    expectFails(sql, "EISDIR", () => vfs.rm("/d"));
    expectFails(sql, "EISDIR", () => vfs.rm("/full", { force: true }));
    expectFails(sql, "ENOENT", () => vfs.rm("/missing"));
    expectFails(sql, "ENOENT", () => vfs.rm("/missing/x", { recursive: true }));
    expectFails(sql, "EBUSY", () => vfs.rm("/", { recursive: true }));
    expectFails(sql, "EBUSY", () => vfs.rm("/", { recursive: true, force: true }));
  });
});

describe("mknod", () => {
  vfsTest("creates fifos, sockets, devices and empty regular files", (vfs) => {
    expect(vfs.mknod("/p", "fifo", 0o644)).toMatchObject({ type: "fifo", mode: 0o644, rdev: 0, size: 0 });
    expect(vfs.mknod("/s", "socket", 0o777).type).toBe("socket");
    expect(vfs.mknod("/c", "char", 0o600, 0x501)).toMatchObject({ type: "char", rdev: 0x501 });
    expect(vfs.mknod("/b", "block", 0o600, 0x802)).toMatchObject({ type: "block", rdev: 0x802 });
    expect(vfs.mknod("/pf", "fifo", 0o600, 7).rdev).toBe(0);
    expect(vfs.mknod("/f", "file", 0o640)).toMatchObject({ type: "file", size: 0 });
    expect(vfs.readFile("/f")).toEqual(new Uint8Array(0));
    expect(vfs.stat("/p")).toEqual(vfs.lstat("/p"));
  });

  vfsTest("errors: EINVAL type or mode, EEXIST, ENOENT, ENOTDIR", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "EINVAL", () => vfs.mknod("/d", "dir", 0o755));
    expectFails(sql, "EINVAL", () => vfs.mknod("/l", "symlink", 0o777));
    expectFails(sql, "EINVAL", () => vfs.mknod("/p", "fifo", 0o20000));
    expectFails(sql, "EEXIST", () => vfs.mknod("/f", "fifo", 0o644));
    expectFails(sql, "EEXIST", () => vfs.mknod("/", "fifo", 0o644));
    expectFails(sql, "ENOENT", () => vfs.mknod("/missing/p", "fifo", 0o644));
    expectFails(sql, "ENOTDIR", () => vfs.mknod("/f/p", "fifo", 0o644));
  });

  vfsTest("special files cannot be read or written as regular files", (vfs, { sql }) => {
    vfs.mknod("/p", "fifo", 0o644);
    expectFails(sql, "EINVAL", () => vfs.readFile("/p"));
    expectFails(sql, "EINVAL", () => vfs.writeFile("/p", "x"));
    expectFails(sql, "EINVAL", () => vfs.pwrite("/p", 0, "x"));
    expectFails(sql, "EINVAL", () => vfs.truncate("/p", 0));
  });
});
