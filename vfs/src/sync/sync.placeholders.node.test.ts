/**
 * Large files to a peer that fetches (computerd's mirror): the push names their chunks as
 * placeholders instead of sending them, the DO holds those blobs until the mirror releases them,
 * and the mirror gets the bytes by hash when it wants them. Small files still travel whole; a
 * peer that does not fetch gets every byte as before.
 */
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, test } from "vitest";
import { linkPair, type SyncSide } from "../../test/sync-harness.ts";
import { memorySide, newPair } from "../../test/sync-pairs.ts";
import { GC_WINDOW_MS } from "../gc.ts";
import { CHUNK_SIZE } from "../limits.ts";
import { sha256Hex } from "../node.ts";
import { nodeSqlite } from "../node-sqlite.ts";
import { openVfs } from "../vfs.ts";
import { SyncEndpoint } from "./endpoint.ts";

const dbs: DatabaseSync[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

/** A mirror side whose endpoint takes placeholders. */
function fetchingMirror(now?: () => number): SyncSide {
  const db = new DatabaseSync(":memory:");
  dbs.push(db);
  const sql = nodeSqlite(db);
  const vfs = openVfs(sql, now ? { sha256: sha256Hex, now } : { sha256: sha256Hex });
  return {
    vfs,
    sql,
    endpoint: new SyncEndpoint(vfs, sql, { side: "container", sha256: sha256Hex, fetches: true }),
  };
}

function random(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Each path's synced state as a fingerprint (chunk hashes, not bytes: placeholders cannot be read). */
function states(side: SyncSide): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const entry of side.vfs.list(dir)) {
      const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      out.set(path, side.endpoint.local.fp(side.endpoint.local.read(path)));
      if (entry.type === "dir") visit(path);
    }
  };
  visit("/");
  return out;
}

function fetchingPair(now?: () => number) {
  return linkPair(memorySide("do", now), fetchingMirror(now));
}

describe("placeholders to a fetching mirror", () => {
  test("a large file arrives as hashes only; its bytes come by hash and match", async () => {
    const pair = fetchingPair();
    const big = random(5 * CHUNK_SIZE + 123, 1);
    pair.do.vfs.writeFile("/big.bin", big);
    pair.do.vfs.writeFile("/small.txt", "small");
    const report = await pair.push.drain();
    expect(report.blobBytes).toBeLessThan(1000);
    expect(pair.toMirror.stats.calls.putBlobs ?? 0).toBe(0);
    expect(states(pair.mirror)).toEqual(states(pair.do));
    expect(pair.mirror.vfs.readText("/small.txt")).toBe("small");
    expect(() => pair.mirror.vfs.readFile("/big.bin")).toThrow(/EIO/);
    expect(pair.do.vfs.heldBlobs()).toBe(6);

    const ino = pair.mirror.vfs.stat("/big.bin").ino;
    const missing = pair.mirror.vfs.placeholderChunks(ino, 0, 100);
    expect(missing.map((c) => c.idx)).toEqual([0, 1, 2, 3, 4, 5]);
    const blobs = await pair.toDo.getBlobs(missing.map((c) => c.hash));
    for (const blob of blobs) expect(pair.mirror.vfs.putBlob(blob.data)).toBe(blob.hash);
    expect(pair.mirror.vfs.readFile("/big.bin")).toEqual(big);

    await pair.toDo.releaseBlobs(
      missing.map((c) => c.hash),
      pair.mirror.endpoint.heldSeq(),
    );
    expect(pair.do.vfs.heldBlobs()).toBe(0);
  });

  test("the DO's GC keeps a held blob of a file it deleted, so the mirror can still fetch it", async () => {
    let now = Date.UTC(2026, 0, 1);
    const pair = fetchingPair(() => now);
    const big = random(5 * CHUNK_SIZE, 2);
    pair.do.vfs.writeFile("/big.bin", big);
    await pair.push.drain();
    pair.do.vfs.unlink("/big.bin");
    now += GC_WINDOW_MS + 1;
    pair.do.vfs.gc();
    const ino = pair.mirror.vfs.stat("/big.bin").ino;
    const hashes = pair.mirror.vfs.placeholderChunks(ino, 0, 10).map((c) => c.hash);
    expect((await pair.toDo.getBlobs(hashes)).length).toBe(5);

    // Released: now the DO may let them go.
    await pair.toDo.releaseBlobs(hashes, pair.mirror.endpoint.heldSeq());
    pair.do.vfs.gc();
    expect(await pair.toDo.getBlobs(hashes)).toEqual([]);
  });

  test("a release made before the DO sent the blob again does not end the new hold", async () => {
    const pair = fetchingPair();
    const big = random(5 * CHUNK_SIZE, 3);
    pair.do.vfs.writeFile("/a.bin", big);
    await pair.push.drain();
    const staleSeq = pair.mirror.endpoint.heldSeq();
    const hashes = pair.mirror.vfs
      .placeholderChunks(pair.mirror.vfs.stat("/a.bin").ino, 0, 10)
      .map((c) => c.hash);
    // The mirror drops its placeholders (the file is gone there) while the DO sends them again.
    pair.mirror.vfs.unlink("/a.bin");
    pair.mirror.sql.exec("DELETE FROM blobs");
    pair.do.vfs.writeFile("/b.bin", big);
    await pair.push.drain();
    expect(pair.mirror.endpoint.heldSeq()).toBeGreaterThan(staleSeq);
    await pair.toDo.releaseBlobs(hashes, staleSeq);
    expect(pair.do.vfs.heldBlobs()).toBe(5);
  });

  test("a mirror that re-seeds empty makes the DO forget its holds", async () => {
    const pair = fetchingPair();
    pair.do.vfs.writeFile("/big.bin", random(5 * CHUNK_SIZE, 4));
    await pair.push.drain();
    expect(pair.do.vfs.heldBlobs()).toBe(5);
    const fresh = linkPair(pair.do, fetchingMirror());
    await fresh.push.connect();
    expect(pair.do.vfs.heldBlobs()).toBe(0);
    // Re-seeded: the holds are those of what the new mirror got.
    await fresh.push.drain();
    expect(pair.do.vfs.heldBlobs()).toBe(5);
    expect(states(fresh.mirror)).toEqual(states(pair.do));
  });

  test("a mirror that does not fetch still gets every byte", async () => {
    const pair = newPair();
    const big = random(5 * CHUNK_SIZE, 5);
    pair.do.vfs.writeFile("/big.bin", big);
    await pair.push.drain();
    expect(pair.mirror.vfs.readFile("/big.bin")).toEqual(big);
    expect(pair.do.vfs.heldBlobs()).toBe(0);
  });

  test("an upload of a file still on placeholders sends hashes only (the DO has the blobs)", async () => {
    const pair = fetchingPair();
    pair.do.vfs.writeFile("/big.bin", random(5 * CHUNK_SIZE, 6));
    await pair.push.drain();
    pair.mirror.vfs.chmod("/big.bin", 0o600);
    pair.mirror.vfs.rename("/big.bin", "/moved.bin");
    const report = await pair.upload.drain();
    expect(report.blobBytes).toBe(0);
    expect(pair.do.vfs.stat("/moved.bin").mode & 0o777).toBe(0o600);
    expect(states(pair.do)).toEqual(states(pair.mirror));
  });
});
