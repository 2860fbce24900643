/**
 * Test support for the node-only sync suites (`vfs/src/sync/*.node.test.ts`): sync sides over
 * in-memory node:sqlite databases, closed after each test, paired both ways by loopbacks.
 */
import { DatabaseSync } from "node:sqlite";
import { afterEach } from "vitest";
import { sha256Hex } from "../src/node.ts";
import { nodeSqlite } from "../src/node-sqlite.ts";
import type { Side } from "../src/sync/wire.ts";
import type { Vfs } from "../src/vfs.ts";
import { linkPair, openSide, type SyncPair, type SyncSide, snapshot } from "./sync-harness.ts";

const open: DatabaseSync[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** One side over a fresh in-memory database (on `now` when given, the wall clock otherwise). */
export function memorySide(side: Side, now?: () => number): SyncSide {
  const db = new DatabaseSync(":memory:");
  open.push(db);
  return openSide(nodeSqlite(db), side, sha256Hex, now);
}

/** A Durable Object side and a mirror side, linked both ways. */
export function newPair(): SyncPair {
  return linkPair(memorySide("do"), memorySide("container"));
}

/** A side's tree as the sync tests compare it. */
export const tree = (vfs: Vfs) => snapshot(vfs, sha256Hex);
