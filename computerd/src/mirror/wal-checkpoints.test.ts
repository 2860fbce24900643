import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MIRROR_FILE, type Mirror, openMirror } from "./open-mirror.ts";

let dir: string;
let mirrors: Mirror[] = [];
afterEach(() => {
  for (const mirror of mirrors) mirror.close();
  mirrors = [];
  rmSync(dir, { recursive: true, force: true });
});

function open(backgroundCheckpoints: boolean): Mirror {
  dir = mkdtempSync(join(tmpdir(), "computerd-ckpt-"));
  const mirror = openMirror(dir, { backgroundCheckpoints });
  mirrors.push(mirror);
  return mirror;
}

const MiB = 1024 * 1024;

/** Writes `count` files of 1 MiB of random bytes, each batch committed; answers them by path. */
function writeFiles(mirror: Mirror, count: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const data = randomBytes(MiB);
    mirror.vfs.writeFile(`/f${i}`, data);
    mirror.sql.commit();
    files.set(`/f${i}`, data);
  }
  return files;
}

describe("the mirror's WAL checkpoints on a worker thread", () => {
  it("copy committed pages into the database file while the WAL is under its limit", async () => {
    const mirror = open(true);
    writeFiles(mirror, 4);
    await mirror.checkpoints?.idle();
    expect(mirror.checkpoints?.counters.checkpoints).toBeGreaterThan(0);
    expect(mirror.checkpoints?.counters.frames).toBeGreaterThan(0);
    // The four chunks are in the database file itself, not only in its WAL.
    expect(statSync(join(dir, MIRROR_FILE)).size).toBeGreaterThan(4 * MiB);
  });

  it("start their thread only with the first checkpoint due, after the first commit", async () => {
    const mirror = open(true);
    writeFiles(mirror, 1);
    // A new computer's first exec commits at once: no thread starts beside it.
    expect(mirror.checkpoints?.counters.workers).toBe(0);
    await mirror.checkpoints?.idle();
    expect(mirror.checkpoints?.counters.workers).toBe(1);
    writeFiles(mirror, 2);
    await mirror.checkpoints?.idle();
    expect(mirror.checkpoints?.counters.workers).toBe(1);
    expect(mirror.checkpoints?.counters.checkpoints).toBeGreaterThanOrEqual(2);
  });

  it("closed before their first checkpoint, leave the mirror whole and start no thread", () => {
    const mirror = open(true);
    const files = writeFiles(mirror, 2);
    mirror.close();
    mirrors = [];
    expect(mirror.checkpoints?.counters.workers).toBe(0);
    expect(existsSync(join(dir, `${MIRROR_FILE}-wal`))).toBe(false);
    const again = openMirror(dir, { backgroundCheckpoints: false });
    mirrors.push(again);
    for (const [path, data] of files) expect(Buffer.from(again.vfs.readFile(path)).equals(data)).toBe(true);
  });

  it("are not made without the worker until the WAL reaches its limit", () => {
    const mirror = open(false);
    writeFiles(mirror, 4);
    expect(mirror.checkpoints).toBeUndefined();
    expect(statSync(join(dir, MIRROR_FILE)).size).toBeLessThan(MiB);
  });

  it("leave the mirror's close as it was: the WAL goes, and every byte reads back", async () => {
    const mirror = open(true);
    const files = writeFiles(mirror, 3);
    await mirror.checkpoints?.idle();
    files.set("/late", randomBytes(MiB));
    mirror.vfs.writeFile("/late", files.get("/late") ?? "");
    mirror.close();
    mirrors = [];
    expect(existsSync(join(dir, `${MIRROR_FILE}-wal`))).toBe(false);
    const again = openMirror(dir, { backgroundCheckpoints: true });
    mirrors.push(again);
    for (const [path, data] of files) expect(Buffer.from(again.vfs.readFile(path)).equals(data)).toBe(true);
  });

  it("run beside a writer that commits all the time, and the WAL stays within its limit", async () => {
    const mirror = open(true);
    // 96 MiB through a 64 MiB WAL limit: the commit past it still checkpoints and starts over.
    writeFiles(mirror, 96);
    await mirror.checkpoints?.idle();
    expect(statSync(join(dir, `${MIRROR_FILE}-wal`)).size).toBeLessThanOrEqual(80 * MiB);
    expect(mirror.vfs.stat("/f95").size).toBe(MiB);
  });
});
