/**
 * Property: GC never removes a blob that a live file, a checkpoint or a fork still uses, and
 * never one stored ahead of its reference within the window. Random sequences of writes
 * (contents shared between files, one of several chunks), truncates, renames, unlinks,
 * checkpoints, restores, checkpoint deletes, blobs stored ahead, forks (an export from a
 * checkpoint, read after later GCs) and GCs past the window, against a model of the tree:
 * after every step each live file reads back its model content, every referenced hash has
 * its blob, and at the end each checkpoint restores to its model. Each fork imports whole
 * once its copy ends: before its checkpoint is deleted (the Worker keeps the checkpoint
 * until the fork has its blobs) or at the end.
 */
import fc from "fast-check";
import { test } from "vitest";
import { describe, expect, openTestVfs, TestClock, withFreshSql } from "../test/backend.ts";
import { CHUNK_SIZE } from "./limits.ts";
import type { SqlLike } from "./sql.ts";
import type { TreeRecord } from "./transfer.ts";
import type { Vfs } from "./vfs.ts";

const WINDOW_MS = 60_000;
const PATHS = ["/a", "/b", "/d/c"];
/** Contents the files share (so blobs are shared and dropped by several names); one spans chunks. */
const CONTENTS = [
  new TextEncoder().encode("one"),
  new TextEncoder().encode("two two"),
  new Uint8Array(CHUNK_SIZE + 5).fill(7),
];

type Op =
  | { kind: "write"; path: string; content: number }
  | { kind: "truncate"; path: string; length: number }
  | { kind: "unlink"; path: string }
  | { kind: "rename"; from: string; to: string }
  | { kind: "checkpoint" | "restore" | "uncheckpoint" | "fork"; name: string }
  | { kind: "ahead"; content: number }
  | { kind: "gc"; pastWindow: boolean };

const path = fc.constantFrom(...PATHS);
const name = fc.constantFrom("x", "y");
const content = fc.nat({ max: CONTENTS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("write"), path, content }), weight: 4 },
  fc.record({ kind: fc.constant("truncate"), path, length: fc.constantFrom(0, 2, CHUNK_SIZE + 1) }),
  { arbitrary: fc.record({ kind: fc.constant("unlink"), path }), weight: 2 },
  fc.record({ kind: fc.constant("rename"), from: path, to: path }),
  { arbitrary: fc.record({ kind: fc.constant("checkpoint"), name }), weight: 3 },
  fc.record({ kind: fc.constantFrom("restore", "uncheckpoint"), name }),
  { arbitrary: fc.record({ kind: fc.constant("fork"), name }), weight: 2 },
  fc.record({ kind: fc.constant("ahead"), content }),
  { arbitrary: fc.record({ kind: fc.constant("gc"), pastWindow: fc.boolean() }), weight: 3 },
);

type Tree = Map<string, Uint8Array>;

/** A fork still copying: the checkpoint it is taken from, its tree and its exported pages. */
interface Fork {
  checkpoint: string;
  tree: Tree;
  pages: TreeRecord[];
}

interface Model {
  files: Tree;
  checkpoints: Map<string, Tree>;
  forks: Fork[];
  /** Hashes stored ahead of any reference, with when. */
  ahead: Map<string, number>;
}

function truncated(data: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(data.subarray(0, Math.min(length, data.length)));
  return out;
}

function exportAll(vfs: Vfs, checkpoint: string): TreeRecord[] {
  const records: TreeRecord[] = [];
  let after: string | undefined;
  do {
    const page = vfs.exportTree({ checkpoint, limit: 4, ...(after === undefined ? {} : { after }) });
    records.push(...page.records);
    after = page.next;
  } while (after !== undefined);
  return records;
}

/** Applies `step` to the vfs and the model alike (a refused vfs call leaves the model as it is). */
function apply(vfs: Vfs, model: Model, clock: TestClock, step: Op): void {
  const attempt = (fn: () => void): boolean => {
    try {
      fn();
      return true;
    } catch {
      return false;
    }
  };
  switch (step.kind) {
    case "write": {
      const data = CONTENTS[step.content] as Uint8Array;
      vfs.writeFile(step.path, data, { parents: true });
      model.files.set(step.path, data);
      return;
    }
    case "truncate": {
      const data = model.files.get(step.path);
      if (attempt(() => vfs.truncate(step.path, step.length)) && data)
        model.files.set(step.path, truncated(data, step.length));
      return;
    }
    case "unlink":
      if (attempt(() => vfs.unlink(step.path))) model.files.delete(step.path);
      return;
    case "rename": {
      const data = model.files.get(step.from);
      if (attempt(() => vfs.rename(step.from, step.to)) && data && step.from !== step.to) {
        model.files.delete(step.from);
        model.files.set(step.to, data);
      }
      return;
    }
    case "checkpoint":
      if (attempt(() => vfs.checkpoint(step.name))) model.checkpoints.set(step.name, new Map(model.files));
      return;
    case "uncheckpoint":
      if (attempt(() => vfs.deleteCheckpoint(step.name))) model.checkpoints.delete(step.name);
      return;
    case "restore": {
      const tree = model.checkpoints.get(step.name);
      if (attempt(() => vfs.restoreCheckpoint(step.name)) && tree) model.files = new Map(tree);
      return;
    }
    case "fork": {
      // As the Worker forks: from a checkpoint it keeps until the fork has its blobs.
      const tree = model.checkpoints.get(step.name);
      if (tree) model.forks.push({ checkpoint: step.name, tree, pages: exportAll(vfs, step.name) });
      return;
    }
    case "ahead": {
      const hash = vfs.putBlob(CONTENTS[step.content] as Uint8Array);
      model.ahead.set(hash, clock.now());
      return;
    }
    case "gc":
      if (step.pastWindow) clock.advance(WINDOW_MS + 1);
      vfs.gc({ windowMs: WINDOW_MS });
      return;
    default:
      step satisfies never;
  }
}

function referencedHashes(sql: SqlLike): string[] {
  return sql
    .exec<{ hash: string }>(
      "SELECT hash FROM chunks WHERE hash IS NOT NULL UNION SELECT hash FROM checkpoint_chunks WHERE hash IS NOT NULL",
    )
    .map((r) => r.hash);
}

function check(vfs: Vfs, sql: SqlLike, model: Model, clock: TestClock, step: number): void {
  for (const [file, data] of model.files)
    expect(vfs.readFile(file), `${file} after step ${step}`).toEqual(data);
  expect(vfs.missingBlobs(referencedHashes(sql)), `referenced blobs after step ${step}`).toEqual([]);
  for (const fork of model.forks) {
    const hashes = fork.pages.flatMap((r) =>
      r.table === "chunks" && typeof r.row.hash === "string" ? [r.row.hash] : [],
    );
    expect(vfs.missingBlobs(hashes), `a fork's blobs after step ${step}`).toEqual([]);
  }
  const young = [...model.ahead].filter(([, at]) => clock.now() - at <= WINDOW_MS).map(([hash]) => hash);
  expect(vfs.missingBlobs(young), `blobs stored ahead within the window after step ${step}`).toEqual([]);
}

async function forkInto(fork: Fork, source: Vfs): Promise<void> {
  const hashes = fork.pages.flatMap((r) =>
    r.table === "chunks" && typeof r.row.hash === "string" ? [r.row.hash] : [],
  );
  // Read from the source before entering the target: on workerd each database is its own
  // Durable Object, and one object cannot touch another's storage.
  const blobs = new Map(hashes.map((hash) => [hash, source.getBlob(hash)]));
  await withFreshSql((sql) => {
    const target = openTestVfs(sql, new TestClock(0));
    for (const hash of target.missingBlobs(hashes)) {
      const blob = blobs.get(hash);
      expect(blob, `fork blob ${hash}`).toBeDefined();
      if (blob) target.putBlob(blob);
    }
    target.importTree(fork.pages);
    target.finishImport();
    for (const [file, data] of fork.tree) expect(target.readFile(file)).toEqual(data);
  });
}

/** Ends the copies of the forks taken from `checkpoint` (or of every fork) into fresh targets. */
async function finishForks(model: Model, source: Vfs, checkpoint?: string): Promise<void> {
  const ending = model.forks.filter((fork) => checkpoint === undefined || fork.checkpoint === checkpoint);
  model.forks = model.forks.filter((fork) => !ending.includes(fork));
  for (const fork of ending) await forkInto(fork, source);
}

/** Failed when the model let a fork copy on past its checkpoint's deletion and a GC (the Worker never does). */
const FORK_OUTLIVES_ITS_CHECKPOINT: Op[] = [
  { kind: "write", path: "/a", content: 0 },
  { kind: "checkpoint", name: "x" },
  { kind: "fork", name: "x" },
  { kind: "unlink", path: "/a" },
  { kind: "uncheckpoint", name: "x" },
  { kind: "gc", pastWindow: true },
];

describe("GC and what still uses a blob", () => {
  test("never removes a blob a live file, a checkpoint, a fork or a young upload still uses", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 16 }), async (ops) => {
        await withFreshSql(async (sql) => {
          const clock = new TestClock(Date.UTC(2026, 0, 1));
          const vfs = openTestVfs(sql, clock);
          const model: Model = { files: new Map(), checkpoints: new Map(), forks: [], ahead: new Map() };
          for (const [i, step] of ops.entries()) {
            if (step.kind === "uncheckpoint") await finishForks(model, vfs, step.name);
            apply(vfs, model, clock, step);
            check(vfs, sql, model, clock, i);
          }
          await finishForks(model, vfs);
          for (const [cp, tree] of model.checkpoints) {
            vfs.restoreCheckpoint(cp);
            for (const [file, data] of tree) expect(vfs.readFile(file), `${file} in ${cp}`).toEqual(data);
          }
        });
      }),
      { numRuns: 30, examples: [[FORK_OUTLIVES_ITS_CHECKPOINT]] },
    );
  }, 120_000);
});
