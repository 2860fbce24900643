/** rename: files and directories, POSIX replace rules, hard links, atomicity and every error case. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails, snapshot } from "../test/snapshot.ts";
import { isFsError } from "./errors.ts";

describe("rename moves", () => {
  vfsTest("a file within a directory and across directories, keeping inode and content", (vfs) => {
    vfs.mkdir("/a");
    vfs.mkdir("/b");
    const st = vfs.writeFile("/a/f", "content");
    vfs.rename("/a/f", "/a/g");
    expect(vfs.exists("/a/f")).toBe(false);
    vfs.rename("/a/g", "/b/h");
    expect(vfs.list("/a")).toEqual([]);
    expect(vfs.stat("/b/h")).toMatchObject({ ino: st.ino, size: 7, nlink: 1 });
    expect(vfs.readText("/b/h")).toBe("content");
    expect(vfs.usage().usedBytes).toBe(7);
  });

  vfsTest("a directory with its subtree, fixing both parents' link counts", (vfs) => {
    vfs.mkdir("/src/sub/deep", { recursive: true });
    vfs.writeFile("/src/sub/deep/f", "x");
    vfs.mkdir("/dst");
    const ino = vfs.stat("/src/sub").ino;
    vfs.rename("/src/sub", "/dst/moved");
    expect(vfs.stat("/dst/moved").ino).toBe(ino);
    expect(vfs.readText("/dst/moved/deep/f")).toBe("x");
    expect(vfs.exists("/src/sub")).toBe(false);
    expect(vfs.stat("/src").nlink).toBe(2);
    expect(vfs.stat("/dst").nlink).toBe(3);
    expect(vfs.realpath("/dst/moved/deep")).toBe("/dst/moved/deep");
  });

  vfsTest("a symlink itself, not its target", (vfs) => {
    vfs.writeFile("/t", "x");
    vfs.symlink("t", "/l");
    vfs.rename("/l", "/m");
    expect(vfs.readlink("/m")).toBe("t");
    expect(vfs.readText("/t")).toBe("x");
    expect(vfs.exists("/l")).toBe(false);
  });

  vfsTest("through a symlinked parent directory", (vfs) => {
    vfs.mkdir("/real");
    vfs.symlink("real", "/l");
    vfs.writeFile("/f", "x");
    vfs.rename("/f", "/l/f");
    expect(vfs.readText("/real/f")).toBe("x");
  });

  vfsTest("a directory to a longer name under the same parent", (vfs) => {
    vfs.mkdir("/a");
    vfs.writeFile("/a/f", "x");
    vfs.rename("/a", "/ab");
    expect(vfs.readText("/ab/f")).toBe("x");
    expect(vfs.exists("/a")).toBe(false);
  });
});

describe("rename replaces", () => {
  vfsTest("a file over a file, freeing the old content", (vfs) => {
    vfs.writeFile("/a", "new");
    const old = vfs.writeFile("/b", "old content");
    const moved = vfs.stat("/a");
    vfs.rename("/a", "/b");
    expect(vfs.exists("/a")).toBe(false);
    expect(vfs.stat("/b").ino).toBe(moved.ino);
    expect(vfs.stat("/b").ino).not.toBe(old.ino);
    expect(vfs.readText("/b")).toBe("new");
    expect(vfs.usage().usedBytes).toBe(3);
  });

  vfsTest("a file over a symlink (the link, not its target)", (vfs) => {
    vfs.mkdir("/d");
    vfs.symlink("d", "/l");
    vfs.writeFile("/f", "x");
    vfs.rename("/f", "/l");
    expect(vfs.lstat("/l").type).toBe("file");
    expect(vfs.stat("/d").type).toBe("dir");
  });

  vfsTest("a directory over an empty directory", (vfs) => {
    vfs.mkdir("/a");
    vfs.writeFile("/a/f", "x");
    vfs.mkdir("/b");
    const ino = vfs.stat("/a").ino;
    vfs.rename("/a", "/b");
    expect(vfs.stat("/b").ino).toBe(ino);
    expect(vfs.readText("/b/f")).toBe("x");
    expect(vfs.stat("/").nlink).toBe(3);
  });

  vfsTest("a hard link of another file, which keeps its other name", (vfs) => {
    vfs.writeFile("/x", "xx");
    vfs.link("/x", "/x2");
    vfs.writeFile("/y", "y");
    vfs.rename("/y", "/x2");
    expect(vfs.stat("/x").nlink).toBe(1);
    expect(vfs.readText("/x")).toBe("xx");
    expect(vfs.readText("/x2")).toBe("y");
    expect(vfs.usage().usedBytes).toBe(3);
  });
});

describe("rename no-ops and hard links", () => {
  vfsTest("renaming a path onto itself changes nothing", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    vfs.mkdir("/d");
    const before = vfs.rev();
    vfs.rename("/f", "/f");
    vfs.rename("/d", "/d");
    vfs.rename("/d", "/d/.");
    expect(vfs.rev()).toBe(before);
    expect(sql.exec("SELECT COUNT(*) AS n FROM nodes")[0]?.n).toBe(3);
  });

  vfsTest("two names of one inode: rename does nothing and both names stay (POSIX)", (vfs) => {
    vfs.writeFile("/a", "x");
    vfs.link("/a", "/b");
    const rev = vfs.rev();
    vfs.rename("/a", "/b");
    expect(vfs.rev()).toBe(rev);
    expect(vfs.stat("/a").nlink).toBe(2);
    expect(vfs.stat("/b").ino).toBe(vfs.stat("/a").ino);
  });

  vfsTest("renaming one hard link keeps the other and the link count", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/a", "x");
    vfs.link("/a", "/b");
    vfs.rename("/a", "/d/c");
    expect(vfs.stat("/b").nlink).toBe(2);
    expect(vfs.stat("/d/c").ino).toBe(vfs.stat("/b").ino);
    expect(vfs.exists("/a")).toBe(false);
  });
});

describe("rename is atomic", () => {
  vfsTest("one revision, and the old and new names change together in the feed", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    vfs.writeFile("/g", "old");
    const cursor = String(vfs.rev());
    vfs.rename("/d/f", "/g");
    expect(vfs.rev()).toBe(Number(cursor) + 1);
    const page = vfs.changes(cursor);
    expect(page.changes.map((c) => [c.path, c.rev, c.stat?.type])).toEqual([
      ["/", Number(cursor) + 1, "dir"],
      ["/d", Number(cursor) + 1, "dir"],
      ["/d/f", Number(cursor) + 1, undefined],
      ["/g", Number(cursor) + 1, "file"],
    ]);
  });
});

describe("rename errors", () => {
  vfsTest("ENOENT: missing source, missing destination parent", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "ENOENT", () => vfs.rename("/missing", "/x"));
    expectFails(sql, "ENOENT", () => vfs.rename("/missing/a", "/x"));
    expectFails(sql, "ENOENT", () => vfs.rename("/f", "/missing/x"));
  });

  vfsTest("ENOTDIR: directory over a non-directory, or a file as a parent", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    vfs.symlink("d", "/ld");
    expectFails(sql, "ENOTDIR", () => vfs.rename("/d", "/f"));
    expectFails(sql, "ENOTDIR", () => vfs.rename("/d", "/ld"));
    expectFails(sql, "ENOTDIR", () => vfs.rename("/f", "/f/x"));
    expectFails(sql, "ENOTDIR", () => vfs.rename("/f/x", "/y"));
  });

  vfsTest("EISDIR: non-directory over a directory", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    vfs.symlink("f", "/lf");
    expectFails(sql, "EISDIR", () => vfs.rename("/f", "/d"));
    expectFails(sql, "EISDIR", () => vfs.rename("/lf", "/d"));
  });

  vfsTest("ENOTEMPTY: directory over a non-empty directory", (vfs, { sql }) => {
    vfs.mkdir("/a");
    vfs.mkdir("/b");
    vfs.writeFile("/b/f", "x");
    vfs.mkdir("/c/sub", { recursive: true });
    expectFails(sql, "ENOTEMPTY", () => vfs.rename("/a", "/b"));
    expectFails(sql, "ENOTEMPTY", () => vfs.rename("/a", "/c"));
    expectFails(sql, "ENOTEMPTY", () => vfs.rename("/c/sub", "/c"));
  });

  vfsTest("EINVAL: a directory into its own subtree, also through a symlink", (vfs, { sql }) => {
    vfs.mkdir("/a/b/c", { recursive: true });
    vfs.symlink("/a/b", "/l");
    expectFails(sql, "EINVAL", () => vfs.rename("/a", "/a/x"));
    expectFails(sql, "EINVAL", () => vfs.rename("/a", "/a/b/c/x"));
    expectFails(sql, "EINVAL", () => vfs.rename("/a/b", "/a/b/c"));
    expectFails(sql, "EINVAL", () => vfs.rename("/a", "/l/x"));
  });

  vfsTest("EBUSY: the root as source or destination", (vfs, { sql }) => {
    vfs.mkdir("/d");
    expectFails(sql, "EBUSY", () => vfs.rename("/", "/d/x"));
    expectFails(sql, "EBUSY", () => vfs.rename("/d", "/"));
  });

  vfsTest("ENAMETOOLONG and EINVAL paths", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    expectFails(sql, "ENAMETOOLONG", () => vfs.rename("/f", `/${"n".repeat(256)}`));
    expectFails(sql, "EINVAL", () => vfs.rename("/f", "g"));
    expectFails(sql, "EINVAL", () => vfs.rename("f", "/g"));
    expectFails(sql, "EINVAL", () => vfs.rename("/f", "/g\0"));
  });
});

describe("checkRename", () => {
  vfsTest(
    "answers exactly what rename would, for every pair of names, and changes nothing",
    (vfs, { sql }) => {
      vfs.mkdir("/full/sub", { recursive: true });
      vfs.mkdir("/empty");
      vfs.writeFile("/f", "f");
      vfs.link("/f", "/hard");
      vfs.symlink("full", "/l");
      const names = [
        "/",
        "/full",
        "/full/sub",
        "/full/sub/new",
        "/empty",
        "/f",
        "/hard",
        "/l",
        "/l/x",
        "/missing",
        "/missing/x",
        `/${"n".repeat(256)}`,
      ];
      const outcome = (fn: () => void): string => {
        try {
          fn();
          return "ok";
        } catch (err) {
          if (isFsError(err)) return err.code;
          throw err;
        }
      };
      for (const from of names) {
        for (const to of names) {
          const before = snapshot(sql);
          const checked = outcome(() => vfs.checkRename(from, to));
          expect(snapshot(sql)).toEqual(before);
          vfs.checkpoint("before");
          const renamed = outcome(() => vfs.rename(from, to));
          expect({ from, to, checked }).toEqual({ from, to, checked: renamed });
          vfs.restoreCheckpoint("before");
          vfs.deleteCheckpoint("before");
        }
      }
    },
  );
});
