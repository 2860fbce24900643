import { CHUNK_SIZE } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestLocalFs } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { LocalFs } from "./local-fs.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const O_TRUNC = 0o1000;

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;

beforeEach(() => {
  ({ mirror, fs, close } = openTestLocalFs("computerd-localfs-"));
});

afterEach(() => close());

function readAll(path: string): string {
  const fh = fs.open(path, 0);
  const buf = new Uint8Array(fs.stat(path).size + 16);
  const n = fs.read(fh, path, buf, 0, buf.length);
  fs.release(fh);
  return dec.decode(buf.subarray(0, n));
}

function writeNew(path: string, text: string): number {
  const { fh } = fs.create(path, 0o644);
  fs.write(fh, path, enc.encode(text), 0);
  return fh;
}

describe("LocalFs", () => {
  it("keeps a directory's attributes as each change of names left them, without reading them again", () => {
    fs.mkdir("/d", 0o755);
    fs.mkdir("/e", 0o755);
    for (const dir of ["/d", "/e", "/"]) fs.readdir(dir);
    const statements = () => mirror.sql.counters.statements;
    const changes: (() => void)[] = [
      () => fs.release(writeNew("/d/f", "x")),
      () => fs.mkdir("/d/sub", 0o755),
      () => fs.symlink("f", "/d/l"),
      () => fs.link("/d/f", "/e/g"),
      () => fs.rename("/d/l", "/e/l"),
      () => fs.exchange("/d/sub", "/e/l"),
      // Now /d/sub is the symlink and /e/l the directory.
      () => fs.unlink("/d/sub"),
      () => fs.rmdir("/e/l"),
      () => fs.unlink("/e/g"),
    ];
    for (const change of changes) {
      change();
      const cached = ["/d", "/e", "/"].map((dir) => {
        const before = statements();
        const stat = fs.stat(dir);
        expect(statements(), `${dir} after ${String(change)}`).toBe(before);
        return stat;
      });
      expect(cached).toEqual([mirror.vfs.lstat("/d"), mirror.vfs.lstat("/e"), mirror.vfs.lstat("/")]);
    }
  });

  it("knows a new directory's row and empty listing without reading either back", () => {
    const statements = () => mirror.sql.counters.statements;
    fs.readdir("/");
    // Each measured from a committed batch, so both open one.
    mirror.sql.commit();
    let before = statements();
    mirror.vfs.mkdir("/bare");
    const vfsAlone = statements() - before;
    mirror.sql.commit();
    before = statements();
    fs.mkdir("/d", 0o755);
    expect(statements() - before).toBe(vfsAlone);
    before = statements();
    const missing = fs.lookup("/d/missing");
    const listed = fs.readdir("/d");
    const stat = fs.stat("/d");
    expect(statements()).toBe(before);
    expect([missing, listed, stat]).toEqual([undefined, [], mirror.vfs.lstat("/d")]);
  });

  it("keeps a hard-linked file's attributes as a link, an unlink or a rename over one of its names left them", () => {
    fs.release(writeNew("/f", "x"));
    fs.flushAll();
    const statements = () => mirror.sql.counters.statements;
    const changes: (() => void)[] = [
      () => fs.link("/f", "/g"),
      () => fs.link("/f", "/h"),
      () => fs.unlink("/g"),
      () => {
        fs.release(writeNew("/x", "y"));
        fs.rename("/x", "/h");
      },
    ];
    for (const change of changes) {
      change();
      const before = statements();
      const stat = fs.stat("/f");
      expect(statements(), `after ${String(change)}`).toBe(before);
      expect(stat).toEqual(mirror.vfs.lstat("/f"));
    }
    expect(fs.stat("/f").nlink).toBe(1);
  });

  it("serves writes from memory, reports the dirty size, and stores a file shortly after its last close", async () => {
    const fh = writeNew("/a", "hello");
    expect(fs.stat("/a").size).toBe(5);
    expect(mirror.vfs.stat("/a").size).toBe(0);
    expect(readAll("/a")).toBe("hello");
    fs.flush(fh);
    fs.release(fh);
    expect(readAll("/a")).toBe("hello");
    await expect.poll(() => mirror.vfs.stat("/a").size, { timeout: 5000, interval: 2 }).toBe(5);
    expect(mirror.vfs.readText("/a")).toBe("hello");
    expect(fs.stat("/a").size).toBe(5);
  });

  it("stores a file's writes before a change that sets its ctime, so the store cannot date it back", async () => {
    const changes: [string, () => void][] = [
      ["chmod", () => fs.chmod("/c", 0o600)],
      ["chown", () => fs.chown("/c", 4242, 4242)],
      ["link", () => fs.link("/c", "/c2")],
    ];
    for (const [name, change] of changes) {
      fs.release(writeNew("/c", name));
      // The change comes later than the write on every clock.
      await new Promise((resolve) => setTimeout(resolve, 2));
      change();
      const changed = mirror.vfs.lstat("/c").ctime;
      fs.flushAll();
      expect(mirror.vfs.readText("/c"), name).toBe(name);
      expect(mirror.vfs.lstat("/c").ctime, name).toEqual(changed);
      expect(fs.stat("/c").ctime, name).toEqual(changed);
      fs.unlink("/c");
    }
  });

  it("keeps big files in memory until flushAll, which writes whole chunks", () => {
    const { fh } = fs.create("/big", 0o644);
    const block = new Uint8Array(131072).fill(7);
    for (let off = 0; off < 3 * CHUNK_SIZE; off += block.length) fs.write(fh, "/big", block, off);
    fs.release(fh);
    expect(mirror.vfs.stat("/big").size).toBe(0);
    expect(fs.stat("/big").size).toBe(3 * CHUNK_SIZE);
    expect(fs.flushAll()).toBe(1);
    const stored = mirror.vfs.readFile("/big");
    expect(stored.length).toBe(3 * CHUNK_SIZE);
    expect(stored.every((b) => b === 7)).toBe(true);
  });

  it("follows renames of dirty files and of directories holding them", () => {
    fs.mkdir("/d", 0o755);
    const { fh } = fs.create("/d/f", 0o644);
    fs.write(fh, "/d/f", new Uint8Array(2 * CHUNK_SIZE).fill(1), 0);
    fs.release(fh);
    fs.rename("/d/f", "/d/g");
    fs.rename("/d", "/e");
    expect(fs.lookup("/d")).toBeUndefined();
    expect(fs.stat("/e/g").size).toBe(2 * CHUNK_SIZE);
    fs.flushAll();
    expect(mirror.vfs.stat("/e/g").size).toBe(2 * CHUNK_SIZE);
    expect(mirror.vfs.exists("/d/f")).toBe(false);
  });

  it("renames over an existing file and drops the replaced file's dirty data", () => {
    fs.release(writeNew("/x", "old"));
    const fh = fs.open("/x", 0);
    fs.write(fh, "/x", enc.encode("OLD!"), 0);
    fs.release(writeNew("/y", "new"));
    fs.rename("/y", "/x");
    fs.release(fh);
    fs.flushAll();
    expect(mirror.vfs.readText("/x")).toBe("new");
    expect(fs.lookup("/y")).toBeUndefined();
  });

  it("keeps the bytes when one of several hard links goes, discards them when the last name goes", () => {
    const fh = writeNew("/h1", "shared");
    fs.link("/h1", "/h2");
    expect(fs.stat("/h2").nlink).toBe(2);
    expect(fs.stat("/h2").ino).toBe(fs.stat("/h1").ino);
    fs.unlink("/h1");
    // Stored under /h2 later (store-paths.ts; local-fs.link.test.ts).
    expect(readAll("/h2")).toBe("shared");
    fs.release(fh);
    fs.flushAll();
    expect(mirror.vfs.readText("/h2")).toBe("shared");
    const fh2 = writeNew("/gone", "x".repeat(10));
    fs.unlink("/gone");
    fs.release(fh2);
    fs.flushAll();
    expect(mirror.vfs.exists("/gone")).toBe(false);
  });

  it("truncates through open handles and with O_TRUNC", () => {
    fs.release(writeNew("/t", "0123456789"));
    const fh = fs.open("/t", O_TRUNC);
    expect(fs.stat("/t").size).toBe(0);
    fs.write(fh, "/t", enc.encode("ab"), 0);
    fs.truncate("/t", 5, fh);
    fs.release(fh);
    fs.flushAll();
    expect(mirror.vfs.readFile("/t")).toEqual(new Uint8Array([97, 98, 0, 0, 0]));
    fs.truncate("/t", 1);
    expect(mirror.vfs.readText("/t")).toBe("a");
    expect(readAll("/t")).toBe("a");
  });

  it("answers misses in a listed directory without SQL", () => {
    fs.mkdir("/m", 0o755);
    expect(fs.lookup("/m/none")).toBeUndefined();
    expect(fs.lookup("/m")?.type).toBe("dir");
    const before = mirror.sql.counters.statements;
    for (let i = 0; i < 100; i++) expect(fs.lookup(`/m/none${i}`)).toBeUndefined();
    expect(mirror.sql.counters.statements).toBe(before);
  });

  it("sees changes made to the mirror behind its back after invalidate", () => {
    fs.mkdir("/s", 0o755);
    expect(fs.readdir("/s")).toEqual([]);
    mirror.vfs.writeFile("/s/remote", "from the DO");
    expect(fs.lookup("/s/remote")).toBeUndefined();
    fs.invalidate(["/s/remote"]);
    expect(fs.lookup("/s/remote")?.size).toBe(11);
    expect(readAll("/s/remote")).toBe("from the DO");
    mirror.vfs.writeFile("/s/remote", "changed");
    fs.invalidate(["/s/remote"]);
    expect(readAll("/s/remote")).toBe("changed");
  });

  it("keeps times set by utimens on a file with unflushed writes", () => {
    const fh = writeNew("/u", "data");
    fs.utimens("/u", 1_000_000, 2_000_000);
    fs.release(fh);
    fs.flushAll();
    const stat = fs.stat("/u");
    expect(stat.mtime).toEqual({ sec: 2000, nsec: 0 });
    expect(stat.atime).toEqual({ sec: 1000, nsec: 0 });
    expect(mirror.vfs.readText("/u")).toBe("data");
  });

  it("creates every kind of node and reports statfs from the quota", () => {
    fs.symlink("target", "/ln");
    expect(fs.readlink("/ln")).toBe("target");
    expect(fs.stat("/ln").type).toBe("symlink");
    fs.mknod("/fifo", 0o010644, 0);
    expect(fs.stat("/fifo").type).toBe("fifo");
    fs.setxattr("/fifo", "user.k", enc.encode("v"), {});
    expect(dec.decode(fs.getxattr("/fifo", "user.k"))).toBe("v");
    expect(fs.getxattr("/fifo", "user.none")).toBeUndefined();
    expect(fs.listxattr("/fifo")).toEqual(["user.k"]);
    fs.removexattr("/fifo", "user.k");
    expect(fs.listxattr("/fifo")).toEqual([]);
    mirror.vfs.setQuota(1 << 20);
    expect(fs.statfs().blocks).toBe(256);
  });

  it("takes what fits of a write that passes the quota, refuses the next (ENOSPC), the fence stores it all", () => {
    mirror.vfs.setQuota(3 << 20);
    const a = fs.create("/a", 0o644);
    expect(fs.write(a.fh, "/a", new Uint8Array(2 << 20).fill(1), 0)).toBe(2 << 20);
    const b = fs.create("/b", 0o644);
    expect(fs.write(b.fh, "/b", new Uint8Array(2 << 20).fill(2), 0)).toBe(1 << 20);
    expect(() => fs.write(b.fh, "/b", new Uint8Array(1).fill(2), 1 << 20)).toThrow(/ENOSPC/);
    expect(fs.flushAll()).toBe(2);
    expect(mirror.vfs.stat("/a").size).toBe(2 << 20);
    expect(mirror.vfs.stat("/b").size).toBe(1 << 20);
    fs.release(a.fh);
    fs.release(b.fh);
    expect(mirror.vfs.readFile("/a").every((x) => x === 1)).toBe(true);
  });
});
