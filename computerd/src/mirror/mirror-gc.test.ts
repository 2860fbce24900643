/**
 * Space given back on the mirror: a new mirror is in incremental auto-vacuum mode and an old
 * one is converted on open, data intact; after 64 MiB are written and deleted the state
 * directory is back within 10% of where it started once the GC has run — on its own, on its
 * timer — and the GC keeps what files and checkpoints still use and what is younger than the
 * window.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openNodeVfs } from "@computer/vfs/node";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { collectGarbage, MIRROR_GC_INTERVAL_MS, MIRROR_GC_WINDOW_MS, startMirrorGc } from "./mirror-gc.ts";
import { MIRROR_FILE, type Mirror, openMirror } from "./open-mirror.ts";

let dir: string;
let clock: number;
let mirror: Mirror | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "computerd-mirror-gc-"));
  clock = Date.UTC(2026, 0, 1);
});

afterEach(() => {
  vi.useRealTimers();
  mirror?.close();
  mirror = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function open(): Mirror {
  mirror = openMirror(dir, { now: () => clock });
  return mirror;
}

/** Bytes the state directory takes (database, WAL and shared memory files). */
function stateBytes(): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

function autoVacuum(m: Mirror): number {
  return m.sql.exec<{ auto_vacuum: number }>("PRAGMA auto_vacuum")[0]?.auto_vacuum ?? -1;
}

/** Writes `mib` MiB of distinct random data under /big. */
function writeBig(m: Mirror, mib: number): void {
  for (let i = 0; i < mib; i++) m.vfs.writeFile(`/big/f${i}`, randomBytes(1 << 20), { parents: true });
  m.sql.commit();
}

describe("the mirror gives space back", () => {
  it("is in incremental auto-vacuum mode when new, and an older mirror is converted on open", () => {
    expect(autoVacuum(open())).toBe(2);
    mirror?.close();
    mirror = undefined;
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), "computerd-mirror-gc-"));
    openNodeVfs(join(dir, MIRROR_FILE)).writeFile("/kept", "made before");
    const db = new DatabaseSync(join(dir, MIRROR_FILE));
    expect(db.prepare("PRAGMA auto_vacuum").all()).toEqual([{ auto_vacuum: 0 }]);
    db.close();
    const converted = open();
    expect(autoVacuum(converted)).toBe(2);
    expect(converted.vfs.readText("/kept")).toBe("made before");
  });

  it("after 64 MiB are written and deleted, GC past the window brings the state back within 10%", () => {
    const m = open();
    m.vfs.writeFile("/base/kept.bin", randomBytes(4 << 20), { parents: true });
    m.vfs.checkpoint("base");
    m.sql.reclaim();
    const start = stateBytes();
    writeBig(m, 64);
    expect(stateBytes()).toBeGreaterThan(start + (64 << 20));
    m.vfs.rm("/big", { recursive: true });
    // Within the window nothing goes: a push or a stream may still need those blobs.
    expect(collectGarbage(m).blobsDeleted).toBe(0);
    clock += MIRROR_GC_WINDOW_MS + 1;
    const report = collectGarbage(m);
    expect(report.blobsDeleted).toBe(64);
    expect(report.pagesFreed).toBeGreaterThan(0);
    expect(stateBytes()).toBeLessThanOrEqual(start * 1.1);
    // What a file and the checkpoint use stays.
    expect(m.vfs.stat("/base/kept.bin").size).toBe(4 << 20);
    m.vfs.restoreCheckpoint("base");
    expect(m.vfs.readFile("/base/kept.bin").length).toBe(4 << 20);
  }, 120_000);

  it("runs on its own on its timer, and idles once a window has passed since the last change", () => {
    vi.useFakeTimers();
    const m = open();
    const logged: string[] = [];
    const runs: number[] = [];
    const gc = startMirrorGc(m, {
      log: (message) => logged.push(message),
      onRun: (report) => runs.push(report.blobsDeleted),
    });
    writeBig(m, 4);
    m.vfs.rm("/big", { recursive: true });
    clock += MIRROR_GC_WINDOW_MS + 1;
    const blobs = () => m.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n;
    expect(blobs()).toBe(4);
    vi.advanceTimersByTime(MIRROR_GC_INTERVAL_MS);
    expect(blobs()).toBe(0);
    expect(runs).toEqual([4]);
    // Nothing changes: it keeps running for one window, then stops scanning.
    vi.advanceTimersByTime(MIRROR_GC_WINDOW_MS + 3 * MIRROR_GC_INTERVAL_MS);
    const idle = runs.length;
    vi.advanceTimersByTime(10 * MIRROR_GC_INTERVAL_MS);
    expect(runs.length).toBe(idle);
    // A change wakes it.
    m.vfs.writeFile("/again", "x");
    vi.advanceTimersByTime(MIRROR_GC_INTERVAL_MS);
    expect(runs.length).toBe(idle + 1);
    gc.stop();
    expect(logged).toEqual([]);
  });
});
