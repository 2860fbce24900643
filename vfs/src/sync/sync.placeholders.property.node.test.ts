/**
 * Property: the Durable Object's GC never drops a blob the mirror still needs to fetch. Random
 * sequences of DO writes and deletes (contents shared between files), pushes to a mirror that
 * takes placeholders, fetches by hash as computerd's fetcher makes them (stored, then released),
 * mirror-side deletes, and GCs past the window on both sides (the mirror's dropped placeholders
 * released too), against a model of the DO's tree: after every step each placeholder a mirror
 * file uses is still at the DO, and every file the mirror holds reads back what the DO wrote
 * once its chunks are fetched.
 */
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { afterEach, expect, test } from "vitest";
import { linkPair, type SyncPair, type SyncSide } from "../../test/sync-harness.ts";
import { sha256Hex } from "../node.ts";
import { nodeSqlite } from "../node-sqlite.ts";
import { openVfs } from "../vfs.ts";
import { SyncEndpoint } from "./endpoint.ts";

const WINDOW_MS = 60_000;
const PATHS = ["/a", "/b", "/d/c"];
const CONTENTS = ["one", "two two", "three three three"].map((t) => new TextEncoder().encode(t));
/** Every file goes as placeholders, so small contents exercise the same paths as large ones. */
const DRAIN = { placeholderFileBytes: 1 };

const dbs: DatabaseSync[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function side(kind: "do" | "container", now: () => number): SyncSide {
  const db = new DatabaseSync(":memory:");
  dbs.push(db);
  const sql = nodeSqlite(db);
  const vfs = openVfs(sql, { sha256: sha256Hex, now });
  const fetches = kind === "container";
  return { vfs, sql, endpoint: new SyncEndpoint(vfs, sql, { side: kind, sha256: sha256Hex, fetches }) };
}

type Op =
  | { kind: "write"; path: string; content: number }
  | { kind: "unlink"; path: string }
  | { kind: "mirrorUnlink"; path: string }
  | { kind: "push" }
  | { kind: "fetch"; path: string }
  | { kind: "gc"; side: "do" | "mirror" }
  | { kind: "wait" };

const path = fc.constantFrom(...PATHS);
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("write"), path, content: fc.nat({ max: 2 }) }), weight: 4 },
  fc.record({ kind: fc.constant("unlink"), path }),
  fc.record({ kind: fc.constant("mirrorUnlink"), path }),
  { arbitrary: fc.record({ kind: fc.constant("push") }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("fetch"), path }), weight: 2 },
  {
    arbitrary: fc
      .record({ kind: fc.constantFrom("do", "mirror") })
      .map((r) => ({ kind: "gc", side: r.kind }) as Op),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant("wait") }), weight: 2 },
);

/** Placeholder chunks of the mirror's file at `path` (none when it is absent or not a file). */
function placeholders(pair: SyncPair, at: string): string[] {
  const vfs = pair.mirror.vfs;
  if (!vfs.exists(at) || vfs.lstat(at).type !== "file") return [];
  return vfs.placeholderChunks(vfs.stat(at).ino, 0, 1 << 20).map((c) => c.hash);
}

/** What computerd's fetcher does: get by hash, check, store, then release at the DO. */
async function fetchFile(pair: SyncPair, at: string): Promise<void> {
  const hashes = placeholders(pair, at);
  if (hashes.length === 0) return;
  const blobs = await pair.toDo.getBlobs(hashes);
  expect(blobs.map((b) => b.hash).sort()).toEqual([...new Set(hashes)].sort());
  for (const blob of blobs) expect(pair.mirror.vfs.putBlob(blob.data)).toBe(blob.hash);
  await pair.toDo.releaseBlobs(hashes, pair.mirror.endpoint.heldSeq());
}

async function run(ops: Op[]): Promise<void> {
  let now = Date.UTC(2026, 0, 1);
  const clock = () => now;
  const pair = linkPair(side("do", clock), side("container", clock));
  const model = new Map<string, Uint8Array>();
  for (const step of ops) {
    switch (step.kind) {
      case "write": {
        const data = CONTENTS[step.content] ?? new Uint8Array(0);
        pair.do.vfs.writeFile(step.path, data, { parents: true });
        model.set(step.path, data);
        break;
      }
      case "unlink":
        if (pair.do.vfs.exists(step.path)) pair.do.vfs.unlink(step.path);
        model.delete(step.path);
        break;
      case "mirrorUnlink":
        // The container deletes it; the next push brings the DO's version back if it changed.
        if (pair.mirror.vfs.exists(step.path)) pair.mirror.vfs.unlink(step.path);
        await pair.upload.drain();
        for (const p of PATHS) if (!pair.do.vfs.exists(p)) model.delete(p);
        break;
      case "push":
        await pair.push.drain(DRAIN);
        break;
      case "fetch":
        await fetchFile(pair, step.path);
        break;
      case "gc":
        if (step.side === "do") pair.do.vfs.gc({ windowMs: WINDOW_MS });
        else {
          const dropped = pair.mirror.vfs.gc({ windowMs: WINDOW_MS }).placeholdersDeleted;
          await pair.toDo.releaseBlobs(dropped, pair.mirror.endpoint.heldSeq());
        }
        break;
      case "wait":
        now += WINDOW_MS + 1;
        break;
    }
    // Every placeholder a mirror file uses can still be fetched from the DO.
    for (const p of PATHS) {
      const needed = placeholders(pair, p);
      if (needed.length > 0) expect(pair.do.vfs.missingBlobs(needed)).toEqual([]);
    }
  }
  // Once fetched, every file the mirror got from the last push reads back what the DO wrote.
  await pair.push.drain(DRAIN);
  for (const [p, data] of model) {
    await fetchFile(pair, p);
    expect(pair.mirror.vfs.readFile(p)).toEqual(data);
  }
}

test("the DO's GC never drops a blob the mirror still needs to fetch", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => run(ops)),
    { numRuns: 300 },
  );
}, 120_000);
