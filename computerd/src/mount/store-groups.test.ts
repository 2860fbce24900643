/**
 * New small files closed together are stored together: one vfs operation for the group, each
 * file as its own store leaves it (bytes, size, the mtime of its last write, the attributes
 * handed on); a group the vfs refuses is stored file by file, so only the file that fails keeps
 * an error for its next close and the others are stored.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Stat, Vfs } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorCode } from "../../test/error-code.ts";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { WriteBack } from "./write-back.ts";

let dir: string;
let mirror: Mirror;
let vfs: Vfs;
let wb: WriteBack;
let handed: Map<number, Stat>;
let stored: number[];
let logged: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "computerd-store-groups-"));
  mirror = openMirror(dir);
  vfs = mirror.vfs;
  handed = new Map();
  stored = [];
  logged = [];
  wb = new WriteBack(vfs, (ino, stat) => (stat ? handed.set(ino, stat) : handed.delete(ino)), {
    log: (message) => logged.push(message),
  });
  wb.hooks = {
    changed: () => {},
    cachedStat: () => undefined,
    changedByStore: () => {},
    stored: (ino) => stored.push(ino),
  };
});

afterEach(() => {
  wb.stop();
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A file created empty (as a FUSE create leaves it), opened, written with `data` and released. */
function writeNew(path: string, data: string | Uint8Array): { ino: number; fh: number } {
  const ino = vfs.writeFile(path, "").ino;
  const fh = wb.open(ino, 0);
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  wb.write(ino, path, bytes, 0, () => vfs.stat(path).size);
  return { ino, fh };
}

const settled = () => expect.poll(() => stored.length, { timeout: 5000, interval: 2 });

describe("the background store of closed files", () => {
  it("stores the new small files closed together in one vfs operation, each as its own store would", async () => {
    const files = Array.from({ length: 40 }, (_, i) => ({ path: `/f${i}`, data: `${i}\n` }));
    const opened = files.map(({ path, data }) => ({ path, data, ...writeNew(path, data) }));
    // Not new (bytes stored already): stored by itself, as before.
    const old = vfs.writeFile("/old", "stored").ino;
    const oldFh = wb.open(old, 0);
    wb.write(old, "/old", new TextEncoder().encode("new"), 0, () => vfs.stat("/old").size);
    const shown = new Map(opened.map(({ ino, path }) => [ino, wb.overlay(vfs.stat(path))]));
    const operations = mirror.sql.counters.operations;
    for (const { fh } of opened) wb.release(fh);
    wb.release(oldFh);
    await settled().toBe(41);
    expect(mirror.sql.counters.operations - operations).toBe(2);
    for (const { ino, path, data } of opened) {
      expect(vfs.readText(path)).toBe(data);
      const stat = vfs.stat(path);
      expect({ size: stat.size, mtime: stat.mtime }).toEqual({
        size: shown.get(ino)?.size,
        mtime: shown.get(ino)?.mtime,
      });
      expect(handed.get(ino)).toEqual(stat);
    }
    expect(vfs.readText("/old")).toBe("newred");
    expect(wb.bufferedGrowth).toBe(0);
  });

  it("stores a refused group file by file: only the file that fails keeps its error", async () => {
    const a = writeNew("/a", "a".repeat(10));
    const b = writeNew("/b", new Uint8Array(100_000).fill(1));
    const c = writeNew("/c", "c".repeat(10));
    const gone = writeNew("/gone", "x");
    // The quota shrank after the writes were taken (the Durable Object holds less room), and one
    // file went behind the write-back: the group as a whole cannot be stored.
    vfs.setQuota(vfs.usage().usedBytes + 100);
    vfs.unlink("/gone");
    for (const { fh } of [a, b, c, gone]) wb.release(fh);
    await settled().toBe(4);
    expect([vfs.readText("/a"), vfs.stat("/b").size, vfs.readText("/c")]).toEqual([
      "a".repeat(10),
      0,
      "c".repeat(10),
    ]);
    // The next close of each file (a new handle's) reports what its store met.
    const close = (ino: number) => errorCode(() => wb.closeHandle(wb.open(ino, 0)));
    expect([close(a.ino), close(b.ino), close(c.ino), close(gone.ino)]).toEqual([
      "OK",
      "ENOSPC",
      "OK",
      "ENOENT",
    ]);
    expect(
      logged.filter((m) => m.includes(`inode ${b.ino}`) || m.includes(`inode ${gone.ino}`)),
    ).toHaveLength(2);
    expect(wb.bufferedGrowth).toBe(0);
  });
});
