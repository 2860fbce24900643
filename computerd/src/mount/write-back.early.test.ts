/**
 * Early writes (early-writes.ts): the FUSE loop answers whole-page writes before JS sees them,
 * only within room the write-back set aside, so the quota ends exactly where it ends without
 * them (a short write, then ENOSPC), and a write the quota can no longer hold when it reaches
 * JS is reported by the file's next fsync or close. `Loop` stands in for native/fuse3.c's
 * credit (take_credit, grantWrites, revokeWrites).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHUNK_SIZE, FILE_SIZE_MAX, type Vfs } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorCode } from "../../test/error-code.ts";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { EARLY_WRITE_BYTES } from "./early-writes.ts";
import { WriteBack } from "./write-back.ts";

/** The loop's side: the credit it may answer from, as fuse3.c keeps it. */
class Loop {
  credit = 0;
  fileSizeMax = 0;
  grant(bytes: number, fileSizeMax: number): void {
    this.credit += bytes;
    this.fileSizeMax = fileSizeMax;
  }
  revoke(): number {
    const left = this.credit;
    this.credit = 0;
    return left;
  }
  /** Whether the loop answers a whole-page write of `size` at `offset` itself (ll_write). */
  answers(offset: number, size: number): boolean {
    if (size !== CHUNK_SIZE || offset % CHUNK_SIZE !== 0 || offset + size > this.fileSizeMax) return false;
    if (this.credit < size) return false;
    this.credit -= size;
    return true;
  }
}

let dir: string;
let mirror: Mirror;
let vfs: Vfs;
let wb: WriteBack;
let loop: Loop;
let logged: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "computerd-early-"));
  mirror = openMirror(dir);
  vfs = mirror.vfs;
  logged = [];
  loop = new Loop();
  wb = new WriteBack(vfs, () => {}, { quietMs: 1, log: (message) => logged.push(message) });
});

afterEach(() => {
  wb.stop();
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

function page(fill: number): Uint8Array {
  return new Uint8Array(CHUNK_SIZE).fill(fill);
}

/**
 * A write as the mount sees it: answered by the loop (then handed to JS) when it may, else
 * answered by JS. Returns [bytes the writer was told, whether the loop answered].
 */
function write(ino: number, path: string, offset: number, data: Uint8Array): [number, boolean] {
  const size = () => vfs.stat(path).size;
  if (loop.answers(offset, data.length)) {
    wb.writeAnswered(ino, path, data, offset, size);
    return [data.length, true];
  }
  return [wb.write(ino, path, data, offset, size), false];
}

describe("early writes", () => {
  it("without a quota: the loop answers every whole page, JS keeps the grant topped up, the data is stored", () => {
    wb.useEarlyWrites(loop);
    expect(loop.credit).toBe(EARLY_WRITE_BYTES);
    expect(loop.fileSizeMax).toBe(FILE_SIZE_MAX);
    const ino = vfs.writeFile("/f", "").ino;
    wb.open(ino, 0);
    for (let i = 0; i < 100; i++)
      expect(write(ino, "/f", i * CHUNK_SIZE, page(i))).toEqual([CHUNK_SIZE, true]);
    // Never more than the limit ahead of JS.
    expect(loop.credit).toBeLessThanOrEqual(EARLY_WRITE_BYTES);
    expect(loop.credit).toBeGreaterThan(EARLY_WRITE_BYTES / 2);
    // Not whole pages: JS answers them.
    expect(write(ino, "/f", 100 * CHUNK_SIZE + 1, page(7).subarray(0, 10))).toEqual([10, false]);
    wb.flushAll();
    const stored = vfs.readFile("/f");
    expect(stored.length).toBe(100 * CHUNK_SIZE + 11);
    for (const i of [0, 1, 50, 99]) expect(stored[i * CHUNK_SIZE + 123]).toBe(i);
    expect(logged).toEqual([]);
  });

  it("with a quota: ends where it ends without early writes (a short write, then ENOSPC)", () => {
    vfs.setQuota(3.5 * CHUNK_SIZE);
    wb.useEarlyWrites(loop);
    expect(loop.credit).toBe(3.5 * CHUNK_SIZE);
    const ino = vfs.writeFile("/f", "").ino;
    wb.open(ino, 0);
    const told = [0, 1, 2, 3].map((i) => write(ino, "/f", i * CHUNK_SIZE, page(1)));
    // Three from the grant; the fourth went to JS, which took the unused grant back and wrote what fits.
    expect(told).toEqual([
      [CHUNK_SIZE, true],
      [CHUNK_SIZE, true],
      [CHUNK_SIZE, true],
      [0.5 * CHUNK_SIZE, false],
    ]);
    expect(errorCode(() => write(ino, "/f", 4 * CHUNK_SIZE, page(1)))).toBe("ENOSPC");
    expect(loop.credit).toBe(0);
    wb.flushAll();
    expect(vfs.stat("/f").size).toBe(3.5 * CHUNK_SIZE);
    expect(vfs.usage().usedBytes).toBe(3.5 * CHUNK_SIZE);
  });

  it("sets the grant aside: a write JS answers cannot take room the loop may still give out", () => {
    vfs.setQuota(8 * CHUNK_SIZE);
    wb.useEarlyWrites(loop);
    const small = vfs.writeFile("/small", "").ino;
    wb.open(small, 0);
    // JS's own write first takes the grant back, then the room is its own; what is left goes
    // back to the loop (write runs continue where JS's write ended): never more than the quota.
    expect(wb.write(small, "/small", new Uint8Array(2 * CHUNK_SIZE), 0, () => 0)).toBe(2 * CHUNK_SIZE);
    expect(wb.bufferedGrowth).toBe(2 * CHUNK_SIZE);
    expect(loop.credit).toBe(6 * CHUNK_SIZE);
  });

  it("a quota set after the grant takes the loop's unused grant back at once and gives it again within the room", () => {
    // The mount starts before the Durable Object sends the computer's quota.
    wb.useEarlyWrites(loop);
    expect(loop.credit).toBe(EARLY_WRITE_BYTES);
    const ino = vfs.writeFile("/f", "").ino;
    wb.open(ino, 0);
    wb.room.setQuota(3 * CHUNK_SIZE);
    expect(vfs.usage().quotaBytes).toBe(3 * CHUNK_SIZE);
    expect(loop.credit).toBe(3 * CHUNK_SIZE);
    // The loop answers what fits, and nothing past it, before JS sees any of it.
    const answered = [0, 1, 2, 3, 4].map((i) => loop.answers(i * CHUNK_SIZE, CHUNK_SIZE));
    expect(answered).toEqual([true, true, true, false, false]);
    for (const i of [0, 1, 2])
      wb.writeAnswered(ino, "/f", page(i), i * CHUNK_SIZE, () => vfs.stat("/f").size);
    expect(errorCode(() => wb.write(ino, "/f", page(3), 3 * CHUNK_SIZE, () => vfs.stat("/f").size))).toBe(
      "ENOSPC",
    );
    wb.flushAll();
    expect(vfs.stat("/f").size).toBe(3 * CHUNK_SIZE);
    expect(logged).toEqual([]);
    // A larger quota gives the loop more room at once; none takes it away again.
    wb.room.setQuota(10 * CHUNK_SIZE);
    expect(loop.credit).toBe(7 * CHUNK_SIZE);
    wb.room.setQuota(null);
    expect(loop.credit).toBe(EARLY_WRITE_BYTES);
  });

  it("a write answered before the quota shrank keeps what fits, is reported once by the next fsync, and the grant goes back", () => {
    vfs.setQuota(64 * CHUNK_SIZE);
    wb.useEarlyWrites(loop);
    const ino = vfs.writeFile("/f", "").ino;
    wb.open(ino, 0);
    expect(write(ino, "/f", 0, page(1))).toEqual([CHUNK_SIZE, true]);
    // Answered by the loop just before the quota shrank, handed to JS just after.
    expect(loop.answers(CHUNK_SIZE, CHUNK_SIZE)).toBe(true);
    wb.room.setQuota(1.5 * CHUNK_SIZE);
    wb.writeAnswered(ino, "/f", page(2), CHUNK_SIZE, () => vfs.stat("/f").size);
    expect(logged.length).toBe(1);
    // The room is gone: nothing more is answered early.
    expect(loop.credit).toBe(0);
    expect(errorCode(() => wb.flush(ino))).toBe("ENOSPC");
    expect(errorCode(() => wb.flush(ino))).toBe("OK");
    expect(vfs.stat("/f").size).toBe(1.5 * CHUNK_SIZE);
  });
});
