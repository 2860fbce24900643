/** File contents: writeFile, readFile (whole and ranges), pwrite, appendFile, truncate and holes. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails } from "../test/snapshot.ts";
import { bytes } from "../test/tree.ts";
import { CHUNK_SIZE } from "./limits.ts";

/** Deterministic bytes whose value depends on the position (so misplaced ranges show). */
function pattern(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return out;
}

describe("writeFile and readFile", () => {
  vfsTest("writes bytes and strings (UTF-8) and returns the new stat", (vfs) => {
    const st = vfs.writeFile("/b", new Uint8Array([0, 1, 254, 255]));
    expect(st).toMatchObject({ type: "file", size: 4, allocated: 4, mode: 0o644 });
    expect(vfs.readFile("/b")).toEqual(new Uint8Array([0, 1, 254, 255]));
    vfs.writeFile("/s", "héllo ✓");
    expect(vfs.readText("/s")).toBe("héllo ✓");
    expect(vfs.stat("/s").size).toBe(bytes("héllo ✓").length);
    vfs.writeFile("/empty", "");
    expect(vfs.readFile("/empty")).toEqual(new Uint8Array(0));
    expect(vfs.stat("/empty").allocated).toBe(0);
  });

  vfsTest("overwriting replaces the whole content and keeps inode and mode", (vfs, { clock }) => {
    const first = vfs.writeFile("/f", "a long first version", { mode: 0o600 });
    clock.advance(1000);
    const second = vfs.writeFile("/f", "short", { mode: 0o777 });
    expect(second.ino).toBe(first.ino);
    expect(second.mode).toBe(0o600);
    expect(vfs.readText("/f")).toBe("short");
    expect(second.mtime.sec).toBe(first.mtime.sec + 1);
    expect(vfs.usage().usedBytes).toBe(5);
  });

  vfsTest("multi-chunk content round-trips, and ranges cross chunk boundaries", (vfs) => {
    const data = pattern(2 * CHUNK_SIZE + 12345);
    vfs.writeFile("/big", data);
    expect(vfs.readFile("/big")).toEqual(data);
    const ranges: [number, number][] = [
      [0, 10],
      [CHUNK_SIZE - 5, 10],
      [CHUNK_SIZE, CHUNK_SIZE],
      [CHUNK_SIZE - 1, CHUNK_SIZE + 2],
      [2 * CHUNK_SIZE + 12340, 100],
      [data.length, 10],
      [data.length + 100, 10],
      [7, 0],
    ];
    for (const [offset, length] of ranges) {
      expect(vfs.readFile("/big", { offset, length })).toEqual(data.slice(offset, offset + length));
    }
    expect(vfs.readFile("/big", { offset: CHUNK_SIZE + 3 })).toEqual(data.slice(CHUNK_SIZE + 3));
  });

  vfsTest("mode applies to a new file; exclusive refuses any existing name", (vfs, { sql }) => {
    expect(vfs.writeFile("/new", "x", { mode: 0o4750, exclusive: true }).mode).toBe(0o4750);
    vfs.mkdir("/d");
    vfs.symlink("nowhere", "/dangling");
    expectFails(sql, "EEXIST", () => vfs.writeFile("/new", "y", { exclusive: true }));
    expectFails(sql, "EEXIST", () => vfs.writeFile("/d", "y", { exclusive: true }));
    expectFails(sql, "EEXIST", () => vfs.writeFile("/dangling", "y", { exclusive: true }));
    expectFails(sql, "EINVAL", () => vfs.writeFile("/other", "y", { mode: 0o10000 }));
  });

  vfsTest("parents creates missing directories", (vfs, { sql }) => {
    vfs.writeFile("/a/b/c.txt", "deep", { parents: true });
    expect(vfs.readText("/a/b/c.txt")).toBe("deep");
    expect(vfs.stat("/a/b").type).toBe("dir");
    vfs.writeFile("/a/b/d.txt", "sibling", { parents: true });
    vfs.writeFile("/top.txt", "top", { parents: true });
    expect(vfs.list("/a/b").map((e) => e.name)).toEqual(["c.txt", "d.txt"]);
    vfs.writeFile("/f", "file");
    expectFails(sql, "ENOTDIR", () => vfs.writeFile("/f/x/y", "z", { parents: true }));
    expectFails(sql, "EEXIST", () => vfs.writeFile("/a/b/c.txt", "z", { parents: true, exclusive: true }));
    expectFails(sql, "ENAMETOOLONG", () => vfs.writeFile(`/p/q/${"n".repeat(256)}`, "z", { parents: true }));
  });

  vfsTest("writes through a symlink to its target", (vfs) => {
    vfs.writeFile("/t", "old");
    vfs.symlink("t", "/l");
    vfs.writeFile("/l", "new");
    expect(vfs.readText("/t")).toBe("new");
    expect(vfs.lstat("/l").type).toBe("symlink");
  });

  vfsTest("errors: EISDIR, ENOENT, ENOTDIR, EINVAL ranges", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    vfs.symlink("d", "/ld");
    expectFails(sql, "EISDIR", () => vfs.writeFile("/d", "x"));
    expectFails(sql, "EISDIR", () => vfs.writeFile("/ld", "x"));
    expectFails(sql, "EISDIR", () => vfs.writeFile("/", "x"));
    expectFails(sql, "EISDIR", () => vfs.readFile("/d"));
    expectFails(sql, "EISDIR", () => vfs.readFile("/ld"));
    expectFails(sql, "ENOENT", () => vfs.writeFile("/missing/f", "x"));
    expectFails(sql, "ENOENT", () => vfs.readFile("/missing"));
    expectFails(sql, "ENOTDIR", () => vfs.writeFile("/f/x", "x"));
    expectFails(sql, "ENOTDIR", () => vfs.readFile("/f/x"));
    expectFails(sql, "EINVAL", () => vfs.readFile("/f", { offset: -1 }));
    expectFails(sql, "EINVAL", () => vfs.readFile("/f", { length: -1 }));
    expectFails(sql, "EINVAL", () => vfs.readFile("/f", { offset: 0.5 }));
  });
});

describe("pwrite", () => {
  vfsTest("overwrites in the middle and extends past the end", (vfs) => {
    vfs.writeFile("/f", "0123456789");
    vfs.pwrite("/f", 3, "abc");
    expect(vfs.readText("/f")).toBe("012abc6789");
    const st = vfs.pwrite("/f", 8, "XYZ");
    expect(vfs.readText("/f")).toBe("012abc67XYZ");
    expect(st).toMatchObject({ size: 11, allocated: 11 });
  });

  vfsTest("writing past the end leaves a hole that reads as zeros and is not allocated", (vfs) => {
    vfs.writeFile("/f", "ab");
    vfs.pwrite("/f", 10, "cd");
    expect(vfs.readFile("/f")).toEqual(new Uint8Array([97, 98, 0, 0, 0, 0, 0, 0, 0, 0, 99, 100]));
    const far = 3 * CHUNK_SIZE + 17;
    const st = vfs.pwrite("/f", far, "end");
    expect(st.size).toBe(far + 3);
    // Whole chunks that were never written are holes; inside a written chunk the gap is stored.
    expect(st.allocated).toBe(12 + 17 + 3);
    expect(vfs.readFile("/f", { offset: CHUNK_SIZE, length: 4 })).toEqual(new Uint8Array(4));
    expect(vfs.readText("/f").slice(-3)).toBe("end");
    expect(vfs.readFile("/f", { offset: far - 2, length: 5 })).toEqual(new Uint8Array([0, 0, 101, 110, 100]));
  });

  vfsTest("a write spanning chunk boundaries rewrites only those chunks", (vfs, { sql }) => {
    const data = pattern(3 * CHUNK_SIZE, 1);
    vfs.writeFile("/f", data);
    const hashes = () =>
      sql.exec<{ hash: string }>("SELECT hash FROM chunks ORDER BY idx").map((r) => r.hash);
    const before = hashes();
    const patch = pattern(100, 9);
    vfs.pwrite("/f", CHUNK_SIZE - 50, patch);
    data.set(patch, CHUNK_SIZE - 50);
    expect(vfs.readFile("/f")).toEqual(data);
    const after = hashes();
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[2]).toBe(before[2]);
  });

  vfsTest("an empty write changes times but not content", (vfs) => {
    vfs.writeFile("/f", "abc");
    const st = vfs.pwrite("/f", 100, "");
    expect(st.size).toBe(3);
    expect(vfs.readText("/f")).toBe("abc");
  });

  vfsTest("errors: ENOENT (pwrite never creates), EISDIR, EINVAL offset", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    expectFails(sql, "ENOENT", () => vfs.pwrite("/missing", 0, "x"));
    expectFails(sql, "EISDIR", () => vfs.pwrite("/d", 0, "x"));
    expectFails(sql, "EINVAL", () => vfs.pwrite("/f", -1, "x"));
    expectFails(sql, "EINVAL", () => vfs.pwrite("/f", 1.5, "x"));
    expectFails(sql, "EFBIG", () => vfs.pwrite("/f", Number.MAX_SAFE_INTEGER, "x"));
  });
});

describe("appendFile", () => {
  vfsTest("creates the file, then appends bytes and strings", (vfs) => {
    vfs.appendFile("/log", "one\n");
    vfs.appendFile("/log", bytes("two\n"));
    const st = vfs.appendFile("/log", "three\n");
    expect(vfs.readText("/log")).toBe("one\ntwo\nthree\n");
    expect(st.size).toBe(14);
    vfs.appendFile("/new/dir/log", "x", { parents: true });
    expect(vfs.readText("/new/dir/log")).toBe("x");
  });

  vfsTest("appends across a chunk boundary", (vfs) => {
    const head = pattern(CHUNK_SIZE - 3, 2);
    vfs.writeFile("/f", head);
    vfs.appendFile("/f", "123456");
    const all = vfs.readFile("/f");
    expect(all.length).toBe(CHUNK_SIZE + 3);
    expect(all.subarray(0, head.length)).toEqual(head);
    expect(new TextDecoder().decode(all.subarray(head.length))).toBe("123456");
  });

  vfsTest("errors: EISDIR, ENOENT, EEXIST with exclusive", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    expectFails(sql, "EISDIR", () => vfs.appendFile("/d", "x"));
    expectFails(sql, "ENOENT", () => vfs.appendFile("/missing/f", "x"));
    expectFails(sql, "EEXIST", () => vfs.appendFile("/f", "x", { exclusive: true }));
  });
});

describe("truncate", () => {
  vfsTest("shrinks within a chunk, to a boundary and to zero, freeing bytes", (vfs) => {
    const data = pattern(2 * CHUNK_SIZE + 100, 3);
    vfs.writeFile("/f", data);
    let st = vfs.truncate("/f", 2 * CHUNK_SIZE + 10);
    expect(st).toMatchObject({ size: 2 * CHUNK_SIZE + 10, allocated: 2 * CHUNK_SIZE + 10 });
    expect(vfs.readFile("/f")).toEqual(data.slice(0, 2 * CHUNK_SIZE + 10));
    st = vfs.truncate("/f", CHUNK_SIZE);
    expect(st.allocated).toBe(CHUNK_SIZE);
    expect(vfs.readFile("/f")).toEqual(data.slice(0, CHUNK_SIZE));
    vfs.truncate("/f", 5);
    expect(vfs.readFile("/f")).toEqual(data.slice(0, 5));
    st = vfs.truncate("/f", 0);
    expect(st).toMatchObject({ size: 0, allocated: 0 });
    expect(vfs.usage().usedBytes).toBe(0);
  });

  vfsTest("grows with a hole that reads as zeros and allocates nothing", (vfs) => {
    vfs.writeFile("/f", "abc");
    const st = vfs.truncate("/f", 2 * CHUNK_SIZE);
    expect(st).toMatchObject({ size: 2 * CHUNK_SIZE, allocated: 3 });
    const all = vfs.readFile("/f");
    expect(all.subarray(0, 3)).toEqual(bytes("abc"));
    expect(all.subarray(3).every((b) => b === 0)).toBe(true);
    expect(vfs.usage().usedBytes).toBe(3);
  });

  vfsTest("old bytes past a shrink never come back when it grows again", (vfs) => {
    vfs.writeFile("/f", "abcdefgh");
    vfs.truncate("/f", 2);
    vfs.truncate("/f", 6);
    expect(vfs.readFile("/f")).toEqual(new Uint8Array([97, 98, 0, 0, 0, 0]));
    vfs.pwrite("/f", 7, "z");
    expect(vfs.readFile("/f")).toEqual(new Uint8Array([97, 98, 0, 0, 0, 0, 0, 122]));
  });

  vfsTest("truncates through a symlink and moves mtime", (vfs, { clock }) => {
    const before = vfs.writeFile("/f", "abcdef");
    vfs.symlink("f", "/l");
    clock.advance(3000);
    const st = vfs.truncate("/l", 2);
    expect(vfs.readText("/f")).toBe("ab");
    expect(st.mtime.sec).toBe(before.mtime.sec + 3);
  });

  vfsTest("errors: ENOENT, EISDIR, EINVAL, EFBIG", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/f", "x");
    expectFails(sql, "ENOENT", () => vfs.truncate("/missing", 0));
    expectFails(sql, "EISDIR", () => vfs.truncate("/d", 0));
    expectFails(sql, "EINVAL", () => vfs.truncate("/f", -1));
    expectFails(sql, "EINVAL", () => vfs.truncate("/f", 0.5));
    expectFails(sql, "EFBIG", () => vfs.truncate("/f", 2 ** 53));
  });
});
