/**
 * Path states and the write primitives, on both SQL backends: a state rebuilt with
 * `materialize` from its chunk hashes has the very fingerprint of the original (holes, chunk
 * boundaries, attributes, xattrs included), reads are literal, and the fingerprint ignores
 * what is side-local.
 */
import { describe, expect, sha256Hex, vfsTest } from "../../test/backend.ts";
import { CHUNK_SIZE } from "../limits.ts";
import type { Vfs } from "../vfs.ts";
import { materialize } from "./apply.ts";
import { fingerprint, readState, sameDirBesideMtime } from "./state.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function copyState(vfs: Vfs, sql: Parameters<typeof readState>[1], from: string, to: string): void {
  const state = readState(vfs, sql, from);
  if (!state) throw new Error(`nothing at ${from}`);
  materialize(vfs, to, state, readState(vfs, sql, to));
}

describe("materialize reproduces a state exactly", () => {
  vfsTest(
    "files with holes, several chunks, a short last chunk, mode, owner, times and xattrs",
    (vfs, { sql }) => {
      vfs.writeFile("/src", "head");
      vfs.truncate("/src", 3 * CHUNK_SIZE + 10);
      vfs.pwrite("/src", 2 * CHUNK_SIZE + 1, new Uint8Array(CHUNK_SIZE).fill(9));
      vfs.chown("/src", 5, 6);
      vfs.chmod("/src", 0o4750);
      vfs.setxattr("/src", "user.a", bytes("1"));
      vfs.utimes("/src", { sec: 10, nsec: 1 }, { sec: 20, nsec: 2 });
      vfs.writeFile("/dst", "something else entirely");
      vfs.setxattr("/dst", "user.gone", bytes("x"));
      copyState(vfs, sql, "/src", "/dst");
      expect(fingerprint(readState(vfs, sql, "/dst"), sha256Hex)).toBe(
        fingerprint(readState(vfs, sql, "/src"), sha256Hex),
      );
      expect(sha256Hex(vfs.readFile("/dst"))).toBe(sha256Hex(vfs.readFile("/src")));
      expect(vfs.listxattr("/dst")).toEqual(["user.a"]);
    },
  );

  vfsTest("symlinks, special files and directories, replacing a node of another kind", (vfs, { sql }) => {
    vfs.symlink("../target", "/link");
    vfs.setxattr("/link", "user.l", bytes("l"), {}, false);
    vfs.mknod("/dev", "char", 0o620, 0x501);
    vfs.mkdir("/dir", { mode: 0o700 });
    vfs.writeFile("/a", "file");
    vfs.mkdir("/b/inner", { recursive: true });
    vfs.writeFile("/c", "file");
    copyState(vfs, sql, "/link", "/a");
    copyState(vfs, sql, "/dev", "/b");
    copyState(vfs, sql, "/dir", "/c");
    const fp = (path: string) => fingerprint(readState(vfs, sql, path), sha256Hex);
    expect([fp("/a"), fp("/b"), fp("/c")]).toEqual([fp("/link"), fp("/dev"), fp("/dir")]);
    expect(vfs.readlink("/a")).toBe("../target");
  });
});

describe("readState", () => {
  vfsTest("is literal: a path below a symlinked directory does not exist", (vfs, { sql }) => {
    vfs.writeFile("/real/f", "x", { parents: true });
    vfs.symlink("real", "/alias");
    expect(vfs.readText("/alias/f")).toBe("x");
    expect(readState(vfs, sql, "/alias/f")).toBeUndefined();
    expect(readState(vfs, sql, "/real/f")?.stat.type).toBe("file");
    expect(readState(vfs, sql, "/missing/f")).toBeUndefined();
    expect(readState(vfs, sql, "/real/f/below")).toBeUndefined();
  });

  vfsTest(
    "the fingerprint ignores ctime, atime and inode numbers, but not a directory's mtime",
    (vfs, { sql, clock }) => {
      vfs.mkdir("/d");
      vfs.writeFile("/f", "same");
      const before = { d: readState(vfs, sql, "/d"), f: readState(vfs, sql, "/f") };
      clock.advance(5000);
      vfs.writeFile("/d/child", "moves the directory's mtime");
      vfs.utimes("/f", "now", "omit");
      vfs.chmod("/f", vfs.stat("/f").mode);
      vfs.link("/f", "/hard");
      const fp = (s: typeof before.d) => fingerprint(s, sha256Hex);
      const d = readState(vfs, sql, "/d");
      // A new entry moves the directory's mtime, and a `touch -d` on it must travel.
      expect(fp(d)).not.toBe(fp(before.d));
      expect(sameDirBesideMtime(d, before.d)).toBe(true);
      vfs.chmod("/d", 0o700);
      expect(sameDirBesideMtime(readState(vfs, sql, "/d"), before.d)).toBe(false);
      expect(sameDirBesideMtime(readState(vfs, sql, "/f"), before.f)).toBe(false);
      expect(fp(readState(vfs, sql, "/f"))).toBe(fp(before.f));
      vfs.utimes("/f", "omit", { sec: 1, nsec: 0 });
      expect(fp(readState(vfs, sql, "/f"))).not.toBe(fp(before.f));
      expect(fingerprint(undefined, sha256Hex)).toBe("");
    },
  );
});
