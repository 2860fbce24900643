/**
 * The statement-saving paths of applying and sending, two-sided: a directory of many new files
 * is applied without a lookup per file (AbsentNames), also when conflicts in that directory
 * create copies in the same batch; new nodes are created together (new-nodes.ts) and read a
 * feed page at a time (state-reader.ts), in statements that do not grow with the files, with
 * the directory times the sender had also when some entries take the ordinary path; an applied
 * batch is not read back when the receiver next sends (echo records), while a later local
 * change to one of its paths is sent; a receiver whose vfs keeps a directory cache finds the
 * directories an earlier batch met without looking them up again.
 */
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, test } from "vitest";
import { linkPair, openSide, type SyncPair, settle, snapshot } from "../../test/sync-harness.ts";
import { DirectoryCache } from "../dir-cache.ts";
import { sha256Hex } from "../node.ts";
import { nodeSqlite } from "../node-sqlite.ts";
import type { SqlLike } from "../sql.ts";
import type { Vfs } from "../vfs.ts";
import { conflictCopyPath } from "./conflict.ts";
import { batchHashes } from "./receive.ts";
import { fingerprint } from "./state.ts";
import type { SyncConflict } from "./wire.ts";

const open: DatabaseSync[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A fresh database whose statements are counted. */
function database(): SqlLike & { statements: number } {
  const db = new DatabaseSync(":memory:");
  open.push(db);
  const sql = nodeSqlite(db);
  const counted = {
    statements: 0,
    exec: ((query, ...bindings) => {
      counted.statements++;
      return sql.exec(query, ...bindings);
    }) as SqlLike["exec"],
    transaction: ((fn) => sql.transaction(fn)) as SqlLike["transaction"],
  };
  return counted;
}

function newPair(): { pair: SyncPair; doSql: SqlLike & { statements: number } } {
  const doSql = database();
  const pair = linkPair(openSide(doSql, "do", sha256Hex), openSide(database(), "container", sha256Hex));
  return { pair, doSql };
}

const tree = (vfs: Vfs) => snapshot(vfs, sha256Hex);

describe("applying many new files in one directory", () => {
  for (const order of ["push-first", "upload-first", "crossing"] as const) {
    test(`${order}: with a conflict in the same directory, both sides end equal and the copy is kept`, async () => {
      const { pair } = newPair();
      pair.do.vfs.mkdir("/d");
      pair.do.vfs.writeFile("/d/f.txt", "base");
      await settle(pair);
      pair.do.vfs.writeFile("/d/f.txt", "from the DO");
      pair.mirror.vfs.writeFile("/d/f.txt", "from the container");
      for (let i = 0; i < 20; i++) {
        pair.do.vfs.writeFile(`/d/do-${i}`, `do ${i}`);
        pair.mirror.vfs.writeFile(`/d/ct-${i}`, `ct ${i}`);
      }
      const conflicts: SyncConflict[] = [];
      if (order === "crossing") {
        const up = pair.mirror.endpoint.nextBatch();
        const down = pair.do.endpoint.nextBatch();
        if (!up || !down) throw new Error("expected batches");
        const atDo = pair.do.endpoint.applyBatch(up.batch);
        const atMirror = pair.mirror.endpoint.applyBatch(down.batch);
        pair.mirror.endpoint.acknowledge(up.batch, atDo);
        pair.do.endpoint.acknowledge(down.batch, atMirror);
        conflicts.push(...atDo.conflicts, ...atMirror.conflicts);
      }
      if (order === "upload-first") conflicts.push(...(await pair.upload.drain()).conflicts);
      for (const report of await settle(pair)) conflicts.push(...report.conflicts);
      expect(conflicts[0]).toMatchObject({ path: "/d/f.txt", winner: "do", reason: "content" });
      expect(pair.do.vfs.readText(conflicts[0]?.copy ?? "")).toBe("from the container");
      expect(pair.do.vfs.readText("/d/f.txt")).toBe("from the DO");
      expect(pair.do.vfs.list("/d")).toHaveLength(42);
      expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    });
  }

  test("a conflict that moves the local version to a copy the same batch also carries: the copy is found, not recreated", async () => {
    const { pair } = newPair();
    pair.do.vfs.mkdir("/d");
    await settle(pair);
    pair.mirror.vfs.writeFile("/d/p", "mine");
    const mine = pair.mirror.endpoint.local.read("/d/p");
    pair.do.vfs.writeFile("/d/p", "theirs");
    for (let i = 0; i < 6; i++) pair.do.vfs.writeFile(`/d/q${i}`, `${i}`);
    const out = pair.do.endpoint.nextBatch();
    if (!out || !mine) throw new Error("expected a batch");
    // The DO already holds the container's version as the copy the container will make itself.
    const fp = fingerprint(mine, sha256Hex);
    const copy = conflictCopyPath("/d/p", fp);
    out.batch.changes.push({ path: copy, rev: 0, base: "", stat: mine.stat, chunks: mine.chunks ?? [] });
    pair.do.vfs.writeFile(copy, "mine");
    pair.do.vfs.utimes(copy, mine.stat.atime, mine.stat.mtime);
    const result = pair.mirror.endpoint.applyBatch({
      ...out.batch,
      blobs: pair.do.endpoint.getBlobs(batchHashes(out.batch.changes)),
    });
    pair.do.endpoint.acknowledge(out.batch, result);
    expect(result).toMatchObject({ status: "applied" });
    expect(result.conflicts).toMatchObject([{ path: "/d/p", copy, reason: "content" }]);
    expect(pair.mirror.vfs.readText(copy)).toBe("mine");
    expect(pair.mirror.vfs.readText("/d/p")).toBe("theirs");
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});

describe("new nodes created together", () => {
  /** Statements each side makes to upload the tree `write` makes below /w. */
  async function uploadCost(
    write: (vfs: Vfs) => void,
  ): Promise<{ doStatements: number; mirrorStatements: number }> {
    const doSql = database();
    const mirrorSql = database();
    const pair = linkPair(openSide(doSql, "do", sha256Hex), openSide(mirrorSql, "container", sha256Hex));
    pair.mirror.vfs.mkdir("/w");
    await settle(pair);
    write(pair.mirror.vfs);
    doSql.statements = 0;
    mirrorSql.statements = 0;
    await pair.upload.drain();
    const cost = { doStatements: doSql.statements, mirrorStatements: mirrorSql.statements };
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
    return cost;
  }

  const nested = (files: number) => (vfs: Vfs) => {
    for (let d = 0; d < 5; d++) {
      vfs.mkdir(`/w/d${d}`);
      vfs.mkdir(`/w/d${d}/sub`);
      vfs.symlink("../x", `/w/d${d}/link`);
      for (let i = 0; i < files; i++) vfs.writeFile(`/w/d${d}/sub/f${i}`, `${d} ${i}\n`);
    }
  };

  test("a batch of new files, directories and symlinks: the statements barely grow from 4 to 80 files a directory", async () => {
    const few = await uploadCost(nested(4));
    const many = await uploadCost(nested(80));
    // Only the inline blobs take more: bound as parameters, 25 per statement (Vfs.putBlobs).
    expect(many.doStatements - few.doStatements).toBeLessThanOrEqual(Math.ceil((5 * 80) / 25));
    // The sender still looks up each new directory once and fingerprints every path, but reads
    // states and bases a page at a time.
    expect(many.mirrorStatements).toBeLessThan(few.mirrorStatements + 20);
  });

  test("new names in directories with fewer than four of them: one lookup per directory, not per name", async () => {
    const { pair, doSql } = newPair();
    const vfs = pair.mirror.vfs;
    const dirs = Array.from({ length: 20 }, (_, i) => `/s${i}`);
    for (const dir of dirs) vfs.mkdir(dir);
    await settle(pair);
    const cost = async (files: number) => {
      for (const dir of dirs) for (let i = 0; i < files; i++) vfs.writeFile(`${dir}/n${files}-${i}`, `${i}`);
      doSql.statements = 0;
      await pair.upload.drain();
      return doSql.statements;
    };
    const one = await cost(1);
    const three = await cost(3);
    // Twenty directories with three new files each cost what they cost with one (inline blobs,
    // 25 per statement, aside): not two more lookups in each.
    expect(three - one).toBeLessThanOrEqual(Math.ceil((3 * dirs.length) / 25));
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(vfs));
  });

  test("a new directory whose entries partly take the ordinary path (xattrs, links) keeps the sender's times", async () => {
    const { pair } = newPair();
    const vfs = pair.mirror.vfs;
    vfs.mkdir("/n");
    for (let i = 0; i < 6; i++) vfs.writeFile(`/n/plain${i}`, `${i}`);
    vfs.writeFile("/n/tagged", "x");
    vfs.setxattr("/n/tagged", "user.tag", new Uint8Array([1]));
    vfs.writeFile("/n/a", "linked");
    vfs.link("/n/a", "/n/b");
    vfs.mkdir("/n/deeper");
    vfs.writeFile("/n/deeper/z", "z");
    vfs.utimes("/n/deeper", { sec: 1000, nsec: 1 }, { sec: 2000, nsec: 2 });
    vfs.utimes("/n", { sec: 3000, nsec: 3 }, { sec: 4000, nsec: 4 });
    await pair.upload.drain();
    expect(pair.do.vfs.lstat("/n").mtime).toEqual({ sec: 4000, nsec: 4 });
    expect(pair.do.vfs.lstat("/n/deeper").mtime).toEqual({ sec: 2000, nsec: 2 });
    expect(pair.do.vfs.lstat("/n/b").nlink).toBe(2);
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(vfs));
    // Nothing echoes back: the DO's scan finds every path at its base.
    expect((await pair.push.drain()).changes).toBe(0);
  });

  test("a directory re-sent only for its times (entries arrived) takes the sender's times, also with new entries below", async () => {
    const { pair, doSql } = newPair();
    const vfs = pair.mirror.vfs;
    for (const dir of ["/p", "/p/a", "/p/b"]) vfs.mkdir(dir);
    vfs.writeFile("/p/a/one", "1");
    await pair.upload.drain();
    for (let i = 0; i < 30; i++) vfs.writeFile(`/p/${i % 2 ? "a" : "b"}/f${i}`, `${i}`);
    vfs.utimes("/p/b", { sec: 10, nsec: 1 }, { sec: 20, nsec: 2 });
    doSql.statements = 0;
    const report = await pair.upload.drain();
    expect(report.changes).toBe(32);
    // Nothing per file or per directory beyond a lookup, a read and the times set at the end.
    expect(doSql.statements).toBeLessThan(60);
    expect(pair.do.vfs.lstat("/p/b").mtime).toEqual({ sec: 20, nsec: 2 });
    expect(pair.do.vfs.lstat("/p/a").mtime).toEqual(vfs.lstat("/p/a").mtime);
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(vfs));
    expect((await pair.push.drain()).changes).toBe(0);
  });

  test("a batch that would pass the DO's quota applies nothing, new files included", async () => {
    const { pair } = newPair();
    pair.do.vfs.setQuota(1000);
    pair.mirror.vfs.mkdir("/q");
    for (let i = 0; i < 20; i++) pair.mirror.vfs.writeFile(`/q/f${i}`, "x".repeat(100));
    await expect(pair.upload.drain()).rejects.toMatchObject({ code: "ENOSPC" });
    expect(pair.do.vfs.exists("/q")).toBe(false);
    pair.do.vfs.setQuota(null);
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });
});

describe("a receiver with a directory cache", () => {
  /** The DO's statements for the second of two uploads into the same deep directories. */
  async function secondUploadCost(directoryCache?: DirectoryCache): Promise<number> {
    const doSql = database();
    const pair = linkPair(
      openSide(doSql, "do", sha256Hex, undefined, directoryCache),
      openSide(database(), "container", sha256Hex),
    );
    const dirs = ["/m", "/m/a", "/m/a/b", "/m/a/b/c", "/m/a/b/c/d"];
    for (const dir of dirs) pair.mirror.vfs.mkdir(dir);
    await pair.upload.drain();
    // npm fills a package's directories over several batches: one new file in each here.
    for (const dir of dirs) pair.mirror.vfs.writeFile(`${dir}/later`, dir);
    doSql.statements = 0;
    expect((await pair.upload.drain()).changes).toBe(2 * dirs.length);
    const statements = doSql.statements;
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
    return statements;
  }

  test("a batch refused after it created directories leaves none cached: no path resolves through them", async () => {
    const directories = new DirectoryCache();
    const pair = linkPair(
      openSide(database(), "do", sha256Hex, undefined, directories),
      openSide(database(), "container", sha256Hex),
    );
    pair.mirror.vfs.writeFile("/z", "small");
    await settle(pair);
    pair.do.vfs.setQuota(pair.do.vfs.usage().usedBytes + 100);
    // The new directory is created with the queue before /z's ordinary write passes the quota:
    // the batch's transaction then rolls back, the directory with it.
    pair.mirror.vfs.mkdir("/d");
    pair.mirror.vfs.writeFile("/d/f", "in d");
    pair.mirror.vfs.writeFile("/z", "x".repeat(1000));
    await expect(pair.upload.drain()).rejects.toMatchObject({ code: "ENOSPC" });
    expect(pair.do.vfs.exists("/d")).toBe(false);
    // The next directory takes the inode number /d had; /d/f must not resolve to its entry.
    pair.do.vfs.mkdir("/e");
    pair.do.vfs.writeFile("/e/f", "in e");
    expect(pair.do.vfs.exists("/d/f")).toBe(false);
    pair.do.vfs.setQuota(null);
    await settle(pair);
    expect(pair.do.vfs.readText("/d/f")).toBe("in d");
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });

  test("finds the directories an earlier batch met without a statement each", async () => {
    const without = await secondUploadCost();
    const withCache = await secondUploadCost(new DirectoryCache());
    // Each of the five directories was looked up by (parent, name) in the second batch too.
    expect(withCache).toBeLessThanOrEqual(without - 5);
  });
});

describe("draining up to a revision", () => {
  test("changes after untilRev wait for a later drain; nothing is lost or sent twice", async () => {
    const { pair } = newPair();
    const vfs = pair.mirror.vfs;
    for (let i = 0; i < 10; i++) vfs.writeFile(`/early${i}`, `${i}`);
    const untilRev = vfs.rev();
    vfs.writeFile("/late", "in progress");
    vfs.chmod("/early3", 0o600);
    const first = await pair.upload.drain({ untilRev, limits: { maxChanges: 4 } });
    expect(first.batches).toBeGreaterThan(1);
    expect(pair.do.vfs.exists("/late")).toBe(false);
    // Changed again after untilRev: its feed entry moved past it, so it waits too.
    expect(pair.do.vfs.exists("/early3")).toBe(false);
    expect(pair.do.vfs.exists("/early9")).toBe(true);
    expect((await pair.upload.drain({ untilRev })).changes).toBe(0);
    const rest = await pair.upload.drain();
    expect(rest.changes).toBeGreaterThan(0);
    expect(pair.do.vfs.readText("/late")).toBe("in progress");
    expect(pair.do.vfs.lstat("/early3").mode).toBe(0o600);
    await settle(pair);
    expect(tree(pair.do.vfs)).toEqual(tree(vfs));
  });
});

describe("echoes", () => {
  test("after an upload the receiver's next scan reads no state; a later change to an applied path is sent", async () => {
    const { pair, doSql } = newPair();
    pair.mirror.vfs.mkdir("/out");
    for (let i = 0; i < 300; i++) pair.mirror.vfs.writeFile(`/out/f${i}`, `${i}\n`);
    await pair.upload.drain();
    doSql.statements = 0;
    const push = await pair.push.drain();
    expect(push.changes).toBe(0);
    // A handful per batch (feed page, echo lookup, ledger), nothing per path.
    expect(doSql.statements).toBeLessThan(60);
    pair.do.vfs.writeFile("/out/f7", "changed in the DO\n");
    expect((await pair.push.drain()).changes).toBe(1);
    expect(pair.mirror.vfs.readText("/out/f7")).toBe("changed in the DO\n");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a path applied from the peer and then changed back to its old state locally is still sent", async () => {
    const { pair } = newPair();
    pair.do.vfs.writeFile("/x", "one");
    await settle(pair);
    pair.mirror.vfs.writeFile("/x", "two");
    await settle(pair);
    const { mtime } = pair.do.vfs.stat("/x");
    pair.do.vfs.writeFile("/x", "two");
    pair.do.vfs.utimes("/x", mtime, mtime);
    // Same content and times as applied: nothing to send, and nothing is lost either way.
    await settle(pair);
    pair.do.vfs.writeFile("/x", "three");
    await settle(pair);
    expect(pair.mirror.vfs.readText("/x")).toBe("three");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});
