/**
 * Building outgoing batches from the change feed, on both SQL backends: batches respect count
 * and byte limits, resume after the acknowledged cursor, carry unsynced parents before their
 * entries, skip states the peer already has, and a batch in flight blocks the next one.
 */
import { describe, expect, sha256Hex, vfsTest } from "../../test/backend.ts";
import type { SqlLike } from "../sql.ts";
import type { Vfs } from "../vfs.ts";
import { SyncEndpoint } from "./endpoint.ts";
import { type BatchLimits, changeBytes, DEFAULT_LIMITS } from "./outbox.ts";
import { groupBlobs } from "./session.ts";
import type { SyncBatch } from "./wire.ts";

function sender(vfs: Vfs, sql: SqlLike): SyncEndpoint {
  return new SyncEndpoint(vfs, sql, { side: "container", sha256: sha256Hex });
}

const applied = (batch: SyncBatch) => ({
  status: "applied" as const,
  rev: 1,
  cursor: batch.cursor,
  conflicts: [],
});

/** Every batch until caught up, each acknowledged as applied. */
function drainLocally(endpoint: SyncEndpoint, limits: Partial<BatchLimits>): SyncBatch[] {
  const batches: SyncBatch[] = [];
  for (;;) {
    const outgoing = endpoint.nextBatch({ ...DEFAULT_LIMITS, maxBytes: 1 << 30, ...limits });
    if (!outgoing) return batches;
    batches.push(outgoing.batch);
    endpoint.acknowledge(outgoing.batch, applied(outgoing.batch));
    if (!outgoing.more) return batches;
  }
}

describe("nextBatch", () => {
  vfsTest("splits by count and by bytes, resuming after the acknowledged cursor", (vfs, { sql }) => {
    for (let i = 0; i < 10; i++) vfs.writeFile(`/f${i}`, new Uint8Array(10_000).fill(i));
    const byCount = drainLocally(sender(vfs, sql), { maxChanges: 3 });
    expect(byCount.map((b) => b.changes.length)).toEqual([3, 3, 3, 2]);
    expect(byCount.flatMap((b) => b.changes.map((c) => c.path)).sort()).toEqual(
      ["/", ...Array.from({ length: 10 }, (_, i) => `/f${i}`)].sort(),
    );
    for (let i = 1; i < byCount.length; i++) expect(byCount[i]?.baseCursor).toBe(byCount[i - 1]?.cursor);

    for (let i = 0; i < 10; i++) vfs.appendFile(`/f${i}`, "+");
    const byBytes = drainLocally(sender(vfs, sql), { maxBytes: 25_000 });
    expect(byBytes.map((b) => b.changes.length)).toEqual([3, 3, 3, 1]);
  });

  vfsTest(
    "splits by the changes' own bytes (xattrs, paths): a batch's message stays bounded",
    (vfs, { sql }) => {
      const value = new Uint8Array(60_000).fill(7);
      for (let i = 0; i < 10; i++) {
        vfs.writeFile(`/x${i}`, "x");
        vfs.setxattr(`/x${i}`, "user.big", value);
      }
      const maxMetaBytes = 150_000;
      const batches = drainLocally(sender(vfs, sql), { maxMetaBytes });
      expect(batches.length).toBeGreaterThan(3);
      for (const batch of batches) {
        const sizes = batch.changes.map(changeBytes);
        // Full once past the limit: everything but the last change fits under it.
        expect(sizes.slice(0, -1).reduce((a, b) => a + b, 0)).toBeLessThan(maxMetaBytes);
      }
      expect(batches.flatMap((b) => b.changes.map((c) => c.path)).sort()).toEqual(
        ["/", ...Array.from({ length: 10 }, (_, i) => `/x${i}`)].sort(),
      );
      // The same files without their xattrs go in one batch.
      for (let i = 0; i < 10; i++) vfs.removexattr(`/x${i}`, "user.big");
      expect(drainLocally(sender(vfs, sql), { maxMetaBytes })).toHaveLength(1);
    },
  );

  vfsTest("unsynced parents travel before their entries; agreed states are skipped", (vfs, { sql }) => {
    const endpoint = sender(vfs, sql);
    vfs.writeFile("/a/b/c.txt", "x", { parents: true });
    vfs.chmod("/a", 0o700);
    const [first] = drainLocally(endpoint, {});
    expect(first?.changes.map((c) => c.path)).toEqual(["/", "/a", "/a/b", "/a/b/c.txt"]);
    expect(endpoint.nextBatch()).toBeUndefined();
    vfs.utimes("/a/b/c.txt", "omit", vfs.lstat("/a/b/c.txt").mtime);
    expect(endpoint.nextBatch()?.batch.changes).toEqual([]);
  });

  vfsTest("a removed directory's agreed entries are deleted in the same batch", (vfs, { sql }) => {
    const endpoint = sender(vfs, sql);
    for (let i = 0; i < 5; i++) vfs.writeFile(`/d/e/f${i}`, "x", { parents: true });
    drainLocally(endpoint, {});
    vfs.rm("/d", { recursive: true });
    // Two changes at most: the root (its mtime moved) and /d, which brings all it held.
    const [batch] = drainLocally(endpoint, { maxChanges: 2 });
    expect(batch?.changes.map((c) => [c.path, c.stat === undefined])).toEqual([
      ["/", false],
      ["/d", true],
      ["/d/e", true],
      ...Array.from({ length: 5 }, (_, i) => [`/d/e/f${i}`, true]),
    ]);
  });

  vfsTest("a batch in flight must be settled before the next", (vfs, { sql }) => {
    const endpoint = sender(vfs, sql);
    vfs.writeFile("/x", "1");
    const outgoing = endpoint.nextBatch();
    expect(outgoing).toBeDefined();
    expect(() => endpoint.nextBatch()).toThrow(/in flight/);
    if (outgoing) endpoint.acknowledge(outgoing.batch, { ...applied(outgoing.batch), status: "stale" });
    expect(endpoint.nextBatch()?.batch.changes.map((c) => c.path)).toEqual(["/", "/x"]);
  });
});

describe("groupBlobs", () => {
  vfsTest("groups blobs by bytes; a larger blob travels alone", () => {
    const blob = (n: number) => ({ hash: String(n), data: new Uint8Array(n) });
    const groups = groupBlobs([blob(3), blob(3), blob(10), blob(1), blob(2)], 6);
    expect(groups.map((g) => g.map((b) => b.data.length))).toEqual([[3, 3], [10], [1, 2]]);
  });
});
