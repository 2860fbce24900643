/**
 * The write-back layer behaves like a full local disk: write() takes what fits and answers
 * ENOSPC (quota: stored bytes plus what buffered writes will add) or EFBIG once nothing does, and data a later flush cannot
 * store is reported once (on that fsync or close) and dropped, so nothing stays stuck.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHUNK_SIZE, FILE_SIZE_MAX, type Stat, type Vfs } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorCode } from "../../test/error-code.ts";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { WriteBack } from "./write-back.ts";

const KiB = 1024;

let dir: string;
let mirror: Mirror;
let vfs: Vfs;
let wb: WriteBack;
let logged: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "computerd-writeback-"));
  mirror = openMirror(dir);
  vfs = mirror.vfs;
  logged = [];
  wb = new WriteBack(vfs, () => {}, { quietMs: 1, log: (message) => logged.push(message) });
});

afterEach(() => {
  wb.stop();
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Creates `path` in the vfs and opens it: [ino, fh]. */
function open(path: string, content: Uint8Array | string = ""): [number, number] {
  const ino = vfs.writeFile(path, content).ino;
  return [ino, wb.open(ino, 0)];
}

/** Writes `length` bytes of `fill`; answers the count taken. */
function write(ino: number, path: string, offset: number, length: number, fill = 1): number {
  return wb.write(ino, path, new Uint8Array(length).fill(fill), offset, () => vfs.stat(path).size);
}

describe("WriteBack at write() time", () => {
  it("takes what fits of a write past the quota (a short count), then refuses with ENOSPC", () => {
    vfs.setQuota(CHUNK_SIZE);
    const [ino] = open("/f");
    expect(write(ino, "/f", 0, 512 * KiB)).toBe(512 * KiB);
    expect(write(ino, "/f", 512 * KiB, 600 * KiB)).toBe(512 * KiB);
    expect(wb.overlay(vfs.stat("/f")).size).toBe(CHUNK_SIZE);
    expect(errorCode(() => write(ino, "/f", CHUNK_SIZE, 1))).toBe("ENOSPC");
    wb.flushAll();
    expect(vfs.stat("/f").size).toBe(CHUNK_SIZE);
    expect(vfs.usage().usedBytes).toBe(CHUNK_SIZE);
  });

  it("counts the buffered writes of every file together", () => {
    vfs.setQuota(CHUNK_SIZE);
    const [a] = open("/a");
    const [b] = open("/b");
    write(a, "/a", 0, 600 * KiB);
    expect(wb.bufferedGrowth).toBe(600 * KiB);
    expect(write(b, "/b", 0, 600 * KiB)).toBe(424 * KiB);
    expect(wb.bufferedGrowth).toBe(CHUNK_SIZE);
    expect(errorCode(() => write(b, "/b", 424 * KiB, 1))).toBe("ENOSPC");
    wb.flushAll();
    expect(wb.bufferedGrowth).toBe(0);
    expect(vfs.usage().usedBytes).toBe(CHUNK_SIZE);
  });

  it("charges only new allocation: overwrites, rewrites after truncation and sparse writes fit", () => {
    vfs.setQuota(CHUNK_SIZE);
    const [ino] = open("/f", new Uint8Array(900 * KiB).fill(7));
    write(ino, "/f", 0, 900 * KiB, 2);
    expect(wb.truncate(ino, "/f", 0, () => vfs.stat("/f").size)).toBe(true);
    write(ino, "/f", 0, 900 * KiB, 3);
    // One byte at 5 GiB allocates one byte, not 5 GiB.
    write(ino, "/f", 5 * 1024 * CHUNK_SIZE, 1);
    wb.flushAll();
    expect(vfs.stat("/f").size).toBe(5 * 1024 * CHUNK_SIZE + 1);
    expect(vfs.usage().usedBytes).toBe(900 * KiB + 1);
    expect(vfs.readFile("/f", { length: 4 })).toEqual(new Uint8Array(4).fill(3));
  });

  it("stops a write at the largest file size (a short count), then answers EFBIG", () => {
    const [ino] = open("/f", "abc");
    expect(errorCode(() => write(ino, "/f", FILE_SIZE_MAX, 10))).toBe("EFBIG");
    expect(errorCode(() => wb.truncate(ino, "/f", FILE_SIZE_MAX + 1, () => 3))).toBe("EFBIG");
    expect(wb.hasDirty(ino)).toBe(false);
    expect(write(ino, "/f", FILE_SIZE_MAX - 4, 10)).toBe(4);
    expect(wb.overlay(vfs.stat("/f")).size).toBe(FILE_SIZE_MAX);
    expect(errorCode(() => write(ino, "/f", FILE_SIZE_MAX, 1))).toBe("EFBIG");
  });
});

describe("WriteBack when a flush is refused", () => {
  it("reports the error on that fsync once, drops the refused writes, and the next flush works", () => {
    vfs.setQuota(CHUNK_SIZE);
    const [ino] = open("/f");
    write(ino, "/f", 0, 100 * KiB);
    // The quota shrank after the write was accepted (the Durable Object holds less room).
    vfs.setQuota(10 * KiB);
    expect(errorCode(() => wb.flush(ino))).toBe("ENOSPC");
    expect(wb.hasDirty(ino)).toBe(false);
    expect(errorCode(() => wb.flush(ino))).toBe("OK");
    expect(errorCode(() => wb.flushAll())).toBe("OK");
    expect(vfs.stat("/f").size).toBe(0);
    write(ino, "/f", 0, 5 * KiB);
    wb.flush(ino);
    expect(vfs.stat("/f").size).toBe(5 * KiB);
  });

  it("the fence completes; the file's next close reports the error once", () => {
    vfs.setQuota(CHUNK_SIZE);
    const [ino, fh] = open("/f");
    const [other, otherFh] = open("/g");
    write(ino, "/f", 0, 100 * KiB);
    write(other, "/g", 0, 4 * KiB);
    vfs.setQuota(8 * KiB);
    expect(wb.flushAll()).toBe(2);
    expect(vfs.stat("/g").size).toBe(4 * KiB);
    expect(wb.hasDirty(ino)).toBe(false);
    expect(logged.some((m) => m.includes(`inode ${ino}`))).toBe(true);
    expect(errorCode(() => wb.closeHandle(otherFh))).toBe("OK");
    expect(errorCode(() => wb.closeHandle(fh))).toBe("ENOSPC");
    expect(errorCode(() => wb.closeHandle(fh))).toBe("OK");
    expect(errorCode(() => wb.flushAll())).toBe("OK");
  });

  it("a completed page the background cannot store is dropped and reported on fsync", async () => {
    vfs.setQuota(4 * CHUNK_SIZE);
    const [ino] = open("/f");
    write(ino, "/f", 0, CHUNK_SIZE + 1);
    vfs.setQuota(KiB);
    // The completed page is stored once writes pause (quietMs), and refused there.
    await expect.poll(() => wb.hasDirty(ino), { timeout: 5000, interval: 5 }).toBe(false);
    expect(errorCode(() => wb.flush(ino))).toBe("ENOSPC");
    expect(errorCode(() => wb.flush(ino))).toBe("OK");
    // Nothing is counted for the dropped writes any more.
    vfs.setQuota(CHUNK_SIZE);
    write(ino, "/f", 0, CHUNK_SIZE);
  });

  it("discarding the file (its last name gone) forgets a kept error", () => {
    vfs.setQuota(CHUNK_SIZE);
    const [ino, fh] = open("/f");
    write(ino, "/f", 0, 100 * KiB);
    vfs.setQuota(KiB);
    wb.flushAll();
    wb.discard(ino);
    expect(errorCode(() => wb.closeHandle(fh))).toBe("OK");
  });
});

describe("WriteBack's background stores while writes stream", () => {
  /** Writes `pages` whole pages of a new file in a row, with no pause between them. */
  function stream(writeBack: WriteBack, pages: number): number {
    const [ino] = open("/s");
    for (let i = 0; i < pages; i++) {
      writeBack.write(ino, "/s", new Uint8Array(CHUNK_SIZE).fill(i + 1), i * CHUNK_SIZE, () => 0);
    }
    return ino;
  }
  const ticks = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it("with streamPages, completed pages are stored while the writes go on (no pause)", async () => {
    wb = new WriteBack(vfs, () => {}, { quietMs: 600_000, streamPages: 2, log: () => {} });
    stream(wb, 3);
    await expect.poll(() => vfs.stat("/s").size, { timeout: 5000, interval: 5 }).toBe(3 * CHUNK_SIZE);
    expect(vfs.readFile("/s").subarray(2 * CHUNK_SIZE, 2 * CHUNK_SIZE + 4)).toEqual(
      new Uint8Array(4).fill(3),
    );
  });

  it("without it (a bare mount), nothing is stored until the writes pause", async () => {
    wb = new WriteBack(vfs, () => {}, { quietMs: 600_000, log: () => {} });
    const ino = stream(wb, 3);
    await ticks(20);
    expect(vfs.stat("/s").size).toBe(0);
    expect(wb.hasDirty(ino)).toBe(true);
  });
});

describe("WriteBack's closes (the addon answers closes without JS while no error waits for one)", () => {
  it("a close stores nothing; the last release stores the file in the background, with every file closed meanwhile", async () => {
    const stored: number[] = [];
    wb.hooks = {
      changed: () => {},
      cachedStat: () => undefined,
      changedByStore: () => {},
      stored: (ino) => stored.push(ino),
    };
    const [a, fa] = open("/a");
    const [b, fb] = open("/b");
    const [c] = open("/c");
    write(a, "/a", 0, 10, 0x61);
    write(b, "/b", 0, 2 * CHUNK_SIZE + 5, 0x62);
    write(c, "/c", 0, 10, 0x63);
    wb.closeHandle(fa);
    wb.closeHandle(fb);
    expect([vfs.stat("/a").size, vfs.stat("/b").size]).toEqual([0, 0]);
    wb.release(fa);
    wb.release(fb);
    // Until stored, the buffered writes are what stat and read show.
    expect(wb.overlay(vfs.stat("/a")).size).toBe(10);
    expect(vfs.stat("/a").size).toBe(0);
    await expect.poll(() => vfs.stat("/a").size, { timeout: 5000, interval: 2 }).toBe(10);
    expect(vfs.stat("/b").size).toBe(2 * CHUNK_SIZE + 5);
    expect(vfs.readText("/a")).toBe("a".repeat(10));
    expect(stored.sort()).toEqual([a, b].sort());
    // Still open: stored by the fence (or its last release), not by the others' store.
    expect([wb.hasDirty(c), vfs.stat("/c").size]).toEqual([true, 0]);
  });

  it("stays off while files are only buffered, so the loop answers their closes", () => {
    const told: boolean[] = [];
    wb.closeWork.listen((pending) => told.push(pending));
    const [ino, fh] = open("/f");
    write(ino, "/f", 0, 10);
    wb.closeHandle(fh);
    wb.release(fh);
    expect(wb.hasDirty(ino)).toBe(true);
    expect(told).toEqual([false]);
  });

  it("stays on while an error waits for the file's next close, off once it was reported", () => {
    const told: boolean[] = [];
    vfs.setQuota(CHUNK_SIZE);
    const [ino, fh] = open("/f");
    wb.closeWork.listen((pending) => told.push(pending));
    write(ino, "/f", 0, 100 * KiB);
    vfs.setQuota(KiB);
    wb.flushAll();
    expect(wb.hasDirty(ino)).toBe(false);
    expect(told.at(-1)).toBe(true);
    expect(errorCode(() => wb.closeHandle(fh))).toBe("ENOSPC");
    expect(told.at(-1)).toBe(false);
  });

  it("turns off when a refused write leaves nothing buffered", () => {
    const told: boolean[] = [];
    vfs.setQuota(CHUNK_SIZE);
    const [ino] = open("/f");
    write(ino, "/f", 0, CHUNK_SIZE);
    wb.flush(ino);
    wb.closeWork.listen((pending) => told.push(pending));
    expect(errorCode(() => write(ino, "/f", CHUNK_SIZE, 1))).toBe("ENOSPC");
    expect(wb.hasDirty(ino)).toBe(false);
    expect(told.at(-1)).toBe(false);
  });
});

describe("WriteBack telling what a store changed behind the kernel", () => {
  it("tells a store that failed or whose attributes before were unknown, not one that matches what stat showed", () => {
    const cached = new Map<number, Stat>();
    const told: number[] = [];
    const store = new WriteBack(
      vfs,
      (ino, stored) => (stored ? cached.set(ino, stored) : cached.delete(ino)),
      { quietMs: 1, log: () => {} },
    );
    store.hooks = {
      changed: () => {},
      cachedStat: (ino) => cached.get(ino),
      changedByStore: (ino) => told.push(ino),
      stored: () => {},
    };
    const ino = vfs.writeFile("/f", "").ino;
    cached.set(ino, vfs.lstat("/f"));
    store.open(ino, 0);
    const put = (offset: number, length: number) =>
      store.write(ino, "/f", new Uint8Array(length).fill(1), offset, () => vfs.stat("/f").size);
    put(0, 100);
    store.flush(ino);
    expect(told).toEqual([]);
    expect(cached.get(ino)?.size).toBe(100);
    // Past the end inside the first page: the estimate (pages in memory) matches what is stored.
    put(5000, 10);
    store.flush(ino);
    expect(told).toEqual([]);
    // Attributes nobody cached (the meta cache dropped them): what the kernel holds is unknown.
    put(5010, 10);
    cached.delete(ino);
    store.flush(ino);
    expect(told).toEqual([ino]);
    put(6000, 4 * KiB);
    // The quota shrank after the write was taken: its store fails and drops it (the size reverts).
    vfs.setQuota(vfs.usage().usedBytes);
    expect(errorCode(() => store.flush(ino))).toBe("ENOSPC");
    expect(told).toEqual([ino, ino]);
    expect(cached.get(ino)).toBeUndefined();
    store.stop();
  });
});
