/**
 * The explicit limits: NAME_MAX per name (no limit on a whole path), PATH_MAX on symlink
 * targets, SYMLOOP_MAX and loops, NUL bytes and relative paths.
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { DEEP_DIR, deepTree } from "../test/fixtures.ts";
import { expectFails } from "../test/snapshot.ts";
import { bytes } from "../test/tree.ts";
import { NAME_MAX, PATH_MAX, SYMLOOP_MAX } from "./limits.ts";
import { byteLength } from "./paths.ts";
import type { Vfs } from "./vfs.ts";

describe("name length", () => {
  vfsTest(`a name of ${NAME_MAX} bytes is fine, one more is ENAMETOOLONG`, (vfs, { sql }) => {
    const max = "n".repeat(NAME_MAX);
    vfs.writeFile(`/${max}`, "x");
    vfs.mkdir(`/d${max.slice(1)}`);
    expect(vfs.stat(`/${max}`).size).toBe(1);
    const long = `${max}n`;
    expectFails(sql, "ENAMETOOLONG", () => vfs.writeFile(`/${long}`, "x"));
    expectFails(sql, "ENAMETOOLONG", () => vfs.mkdir(`/${long}`));
    expectFails(sql, "ENAMETOOLONG", () => vfs.mkdir(`/${long}/x`, { recursive: true }));
    expectFails(sql, "ENAMETOOLONG", () => vfs.symlink("x", `/${long}`));
    expectFails(sql, "ENAMETOOLONG", () => vfs.mknod(`/${long}`, "fifo", 0o644));
    expectFails(sql, "ENAMETOOLONG", () => vfs.stat(`/${long}`));
    expectFails(sql, "ENAMETOOLONG", () => vfs.rename(`/${max}`, `/${long}`));
  });

  vfsTest("names are measured in UTF-8 bytes, not characters", (vfs, { sql }) => {
    const ok = `${"é".repeat(127)}a`; // 255 bytes
    vfs.writeFile(`/${ok}`, "x");
    expect(vfs.list("/").map((e) => e.name)).toEqual([ok]);
    expectFails(sql, "ENAMETOOLONG", () => vfs.writeFile(`/${"é".repeat(128)}`, "x"));
    expectFails(sql, "ENAMETOOLONG", () => vfs.writeFile(`/${"😀".repeat(64)}`, "x"));
    vfs.writeFile(`/${"😀".repeat(63)}abc`, "x");
  });
});

describe("path length", () => {
  vfsTest(
    `a path far past ${PATH_MAX} bytes works for every operation: only names are limited`,
    (vfs, { sql }) => {
      deepTree(vfs);
      expect(byteLength(DEEP_DIR)).toBeGreaterThan(2 * PATH_MAX);
      const file = `${DEEP_DIR}/file`;
      expect(vfs.readText(file)).toBe("deep content");
      expect(vfs.stat(`${DEEP_DIR}/hard`).nlink).toBe(2);
      expect(vfs.readText(`${DEEP_DIR}/link`)).toBe("deep content");
      expect(vfs.realpath(`${DEEP_DIR}/link`)).toBe(file);
      expect(vfs.list(DEEP_DIR).map((e) => e.name)).toEqual(["fifo", "file", "hard", "link"]);
      vfs.appendFile(file, "+");
      vfs.rename(file, `${DEEP_DIR}/moved`);
      vfs.chmod(`${DEEP_DIR}/moved`, 0o600);
      vfs.setxattr(`${DEEP_DIR}/moved`, "user.k", bytes("v"));
      expect(vfs.readText(`${DEEP_DIR}/moved`)).toBe("deep content+");
      expect(vfs.find(DEEP_DIR, "*ove*")).toEqual([`${DEEP_DIR}/moved`]);
      expectFails(sql, "ENAMETOOLONG", () => vfs.writeFile(`${DEEP_DIR}/${"n".repeat(NAME_MAX + 1)}`, "x"));
      expectFails(sql, "ENAMETOOLONG", () => vfs.stat(`/${"é".repeat(2048)}`));
      const top = `/${DEEP_DIR.split("/")[1]}`;
      vfs.rm(top, { recursive: true });
      expect(vfs.list("/")).toEqual([]);
      expect(vfs.usage().usedBytes).toBe(0);
    },
  );

  vfsTest("a symlink target longer than PATH_MAX is ENAMETOOLONG", (vfs, { sql }) => {
    expectFails(sql, "ENAMETOOLONG", () => vfs.symlink("t".repeat(PATH_MAX + 1), "/l"));
    vfs.symlink("t".repeat(PATH_MAX), "/l");
    expect(vfs.readlink("/l").length).toBe(PATH_MAX);
  });
});

describe("symlink hops", () => {
  /** l1 -> l2 -> ... -> l{n} -> /target */
  function chain(vfs: Vfs, prefix: string, n: number): void {
    for (let i = 1; i <= n; i++) vfs.symlink(i === n ? "/target" : `${prefix}${i + 1}`, `/${prefix}${i}`);
  }

  vfsTest(`${SYMLOOP_MAX} hops resolve, ${SYMLOOP_MAX + 1} are ELOOP`, (vfs, { sql }) => {
    vfs.writeFile("/target", "end");
    chain(vfs, "a", SYMLOOP_MAX);
    chain(vfs, "b", SYMLOOP_MAX + 1);
    expect(vfs.readText("/a1")).toBe("end");
    expect(vfs.realpath("/a1")).toBe("/target");
    expectFails(sql, "ELOOP", () => vfs.stat("/b1"));
    expectFails(sql, "ELOOP", () => vfs.readFile("/b1"));
    expectFails(sql, "ELOOP", () => vfs.writeFile("/b1", "x"));
    expect(vfs.lstat("/b1").type).toBe("symlink");
    expect(vfs.readText("/b2")).toBe("end");
  });

  vfsTest("hops through directories count too", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/f", "x");
    // Each /dN is a link to the next, the last to /d: /d1/f needs SYMLOOP_MAX hops.
    for (let i = 1; i <= SYMLOOP_MAX + 1; i++)
      vfs.symlink(i === SYMLOOP_MAX + 1 ? "d" : `d${i + 1}`, `/d${i}`);
    expect(vfs.readText(`/d2/f`)).toBe("x");
    expectFails(sql, "ELOOP", () => vfs.readFile("/d1/f"));
    expectFails(sql, "ELOOP", () => vfs.mkdir("/d1/new"));
  });

  vfsTest("a loop is ELOOP for every following operation, and lstat still works", (vfs, { sql }) => {
    vfs.symlink("b", "/a");
    vfs.symlink("a", "/b");
    vfs.symlink("self", "/self");
    vfs.mkdir("/d");
    vfs.symlink("../d/loop", "/d/loop");
    for (const path of ["/a", "/b", "/self", "/d/loop"]) {
      expectFails(sql, "ELOOP", () => vfs.stat(path));
      expectFails(sql, "ELOOP", () => vfs.realpath(path));
      expectFails(sql, "ELOOP", () => vfs.writeFile(path, "x"));
      expectFails(sql, "ELOOP", () => vfs.chmod(path, 0o600));
      expectFails(sql, "ELOOP", () => vfs.mkdir(`${path}/x`));
      expect(vfs.lstat(path).type).toBe("symlink");
      expect(vfs.exists(path)).toBe(false);
    }
    vfs.unlink("/a");
    expectFails(sql, "ENOENT", () => vfs.stat("/b"));
  });
});

describe("invalid paths", () => {
  vfsTest("NUL bytes and relative paths are EINVAL for every kind of operation", (vfs, { sql }) => {
    vfs.writeFile("/f", "x");
    for (const bad of ["/a\0b", "\0", "relative", "f", "", "./f"]) {
      expectFails(sql, "EINVAL", () => vfs.stat(bad));
      expectFails(sql, "EINVAL", () => vfs.lstat(bad));
      expectFails(sql, "EINVAL", () => vfs.writeFile(bad, "x"));
      expectFails(sql, "EINVAL", () => vfs.readFile(bad));
      expectFails(sql, "EINVAL", () => vfs.mkdir(bad, { recursive: true }));
      expectFails(sql, "EINVAL", () => vfs.rm(bad, { force: true }));
      expectFails(sql, "EINVAL", () => vfs.rename("/f", bad));
      expectFails(sql, "EINVAL", () => vfs.link("/f", bad));
      expectFails(sql, "EINVAL", () => vfs.symlink("/f", bad));
      expectFails(sql, "EINVAL", () => vfs.readdir(bad));
    }
  });
});
