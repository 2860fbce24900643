/**
 * LocalFs.exchange (renameat2 RENAME_EXCHANGE on the mount): the names trade inodes in the
 * mirror and in the caches, and data still buffered follows its inode to the other name,
 * also below a swapped directory.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestLocalFs } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { LocalFs } from "./local-fs.ts";

const enc = new TextEncoder();

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;

beforeEach(() => {
  ({ mirror, fs, close } = openTestLocalFs("computerd-exchange-"));
});

afterEach(() => close());

/** Creates `path` with `text` still buffered (the handle stays open, nothing flushed). */
function dirty(path: string, text: string): number {
  const { fh } = fs.create(path, 0o644);
  fs.write(fh, path, enc.encode(text), 0);
  return fh;
}

describe("LocalFs.exchange", () => {
  it("swaps two files whose data is still buffered; each flush lands under the new name", () => {
    const a = dirty("/a", "alpha");
    const b = dirty("/b", "beta!!");
    const [inoA, inoB] = [fs.stat("/a").ino, fs.stat("/b").ino];
    expect(mirror.vfs.stat("/a").size).toBe(0);
    fs.exchange("/a", "/b");
    expect(fs.stat("/a")).toMatchObject({ ino: inoB, size: 6 });
    expect(fs.stat("/b")).toMatchObject({ ino: inoA, size: 5 });
    fs.release(a);
    fs.release(b);
    fs.flushAll();
    expect(mirror.vfs.readText("/a")).toBe("beta!!");
    expect(mirror.vfs.readText("/b")).toBe("alpha");
  });

  it("swaps a directory holding buffered files with a file in another directory", () => {
    mirror.vfs.mkdir("/p/d", { recursive: true });
    mirror.vfs.mkdir("/q");
    const inside = dirty("/p/d/f", "inside");
    const file = dirty("/q/file", "flat");
    // Listings of both parents and of the directory are cached before the swap.
    expect(fs.readdir("/p/d").map(([name]) => name)).toEqual(["f"]);
    expect(fs.readdir("/q").map(([name]) => name)).toEqual(["file"]);
    expect([fs.stat("/p").nlink, fs.stat("/q").nlink]).toEqual([3, 2]);
    fs.exchange("/p/d", "/q/file");
    expect(fs.stat("/p/d").type).toBe("file");
    expect(fs.stat("/q/file").type).toBe("dir");
    expect(fs.readdir("/q/file").map(([name]) => name)).toEqual(["f"]);
    // The listing cached for the directory's old name is gone: that name is a file now.
    expect(() => fs.lookup("/p/d/f")).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
    expect([fs.stat("/p").nlink, fs.stat("/q").nlink]).toEqual([2, 3]);
    fs.release(inside);
    fs.release(file);
    fs.flushAll();
    expect(mirror.vfs.readText("/q/file/f")).toBe("inside");
    expect(mirror.vfs.readText("/p/d")).toBe("flat");
  });

  it("fails as the vfs does and leaves the caches and buffers as they were", () => {
    const a = dirty("/a", "alpha");
    fs.mkdir("/d", 0o755);
    expect(() => fs.exchange("/a", "/missing")).toThrow(expect.objectContaining({ code: "ENOENT" }));
    expect(() => fs.exchange("/d", "/d/x")).toThrow(expect.objectContaining({ code: "ENOENT" }));
    fs.mkdir("/d/sub", 0o755);
    expect(() => fs.exchange("/d", "/d/sub")).toThrow(expect.objectContaining({ code: "EINVAL" }));
    expect(fs.readdir("/").map(([name]) => name)).toEqual(["a", "d"]);
    fs.release(a);
    fs.flushAll();
    expect(mirror.vfs.readText("/a")).toBe("alpha");
  });
});
