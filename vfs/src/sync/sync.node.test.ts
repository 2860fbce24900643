/**
 * The sync properties of ARCHITECTURE.md, two-sided: a DO side and a mirror side, each on its
 * own node:sqlite database, linked through in-process loopbacks. Each test fails without the
 * property it names.
 */
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, test } from "vitest";
import { CHUNK_SIZE } from "../limits.ts";
import { sha256Hex } from "../node.ts";
import { nodeSqlite } from "../node-sqlite.ts";
import type { Vfs } from "../vfs.ts";
import { batchHashes } from "./receive.ts";
import { linkPair, openSide, type SyncPair, settle, snapshot } from "./sync-harness.ts";
import type { SyncConflict } from "./wire.ts";

const open: DatabaseSync[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function database() {
  const db = new DatabaseSync(":memory:");
  open.push(db);
  return nodeSqlite(db);
}

function newPair(): SyncPair {
  return linkPair(openSide(database(), "do", sha256Hex), openSide(database(), "container", sha256Hex));
}

const bytes = (text: string) => new TextEncoder().encode(text);
const tree = (vfs: Vfs) => snapshot(vfs, sha256Hex);

/** Bytes that differ in every chunk. */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A tree with every kind of node and attribute sync must carry. */
function richTree(vfs: Vfs): void {
  vfs.mkdir("/src/lib", { recursive: true, mode: 0o750 });
  vfs.writeFile("/src/main.ts", "console.log('hi');\n");
  vfs.writeFile("/src/lib/big.bin", new Uint8Array(2 * CHUNK_SIZE + 3).fill(5));
  vfs.writeFile("/sparse", "head");
  vfs.truncate("/sparse", 3 * CHUNK_SIZE);
  vfs.pwrite("/sparse", 2 * CHUNK_SIZE + 1, "tail");
  vfs.writeFile("/empty", "");
  vfs.symlink("src/lib", "/lib");
  vfs.symlink("/workspace/src/main.ts", "/abs-link");
  vfs.mknod("/fifo", "fifo", 0o600);
  vfs.mknod("/dev-null", "char", 0o666, 0x103);
  vfs.chown("/src/lib", 1000, 1000);
  vfs.chmod("/src/main.ts", 0o4755);
  vfs.utimes("/sparse", { sec: -5, nsec: 7 }, { sec: 2 ** 33, nsec: 9 });
  vfs.setxattr("/src/main.ts", "user.mime", bytes("text/typescript"));
  vfs.setxattr("/lib", "user.on-link", bytes("l"), {}, false);
  vfs.setxattr("/src", "user.dir", bytes("d"));
}

describe("property 1: push completeness", () => {
  test("after a push the mirror holds every DO-side change", async () => {
    const pair = newPair();
    richTree(pair.do.vfs);
    await pair.push.drain();
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));

    pair.do.vfs.rename("/src", "/source");
    pair.do.vfs.unlink("/fifo");
    pair.do.vfs.chmod("/empty", 0o600);
    pair.do.vfs.removexattr("/source/main.ts", "user.mime");
    pair.do.vfs.truncate("/source/lib/big.bin", 10);
    await pair.push.drain();
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a deleted tree is gone from the mirror even when its deletions span several batches", async () => {
    const pair = newPair();
    for (let i = 0; i < 30; i++) pair.do.vfs.writeFile(`/tree/d${i % 3}/f${i}`, `${i}`, { parents: true });
    pair.do.vfs.writeFile("/other", "o");
    await pair.push.drain();
    pair.do.vfs.rm("/tree", { recursive: true });
    pair.do.vfs.writeFile("/other", "changed");
    await pair.push.drain({ limits: { maxChanges: 2 } });
    expect(pair.mirror.vfs.exists("/tree")).toBe(false);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a failed push rejects (so no command starts) and the next push completes", async () => {
    const pair = newPair();
    richTree(pair.do.vfs);
    pair.toMirror.setConnected(false);
    await expect(pair.push.drain()).rejects.toThrow("link down");
    pair.toMirror.setConnected(true);
    await pair.push.drain();
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});

describe("property 2: upload completeness", () => {
  test("deletes, renames, symlinks, chmod, chown, utimes, xattrs and special files reach the DO", async () => {
    const pair = newPair();
    richTree(pair.do.vfs);
    await settle(pair);
    const m = pair.mirror.vfs;
    m.rename("/src/lib", "/moved");
    m.rm("/sparse");
    m.symlink("moved/big.bin", "/big-link");
    m.chmod("/src/main.ts", 0o700);
    m.chown("/empty", 7, 8);
    m.utimes("/empty", { sec: 1, nsec: 2 }, { sec: 3, nsec: 4 });
    m.setxattr("/moved", "user.new", bytes("x"));
    m.removexattr("/src/main.ts", "user.mime");
    m.mknod("/sock", "socket", 0o644);
    m.appendFile("/moved/big.bin", "more");
    m.writeFile("/deep/er/file.txt", "new", { parents: true });
    const report = await pair.upload.drain();
    expect(report.conflicts).toEqual([]);
    expect(tree(pair.do.vfs)).toEqual(tree(m));
  });

  test("uploads flow in several batches when limits are small, and still complete", async () => {
    const pair = newPair();
    for (let i = 0; i < 40; i++)
      pair.mirror.vfs.writeFile(`/d${i % 4}/f${i}`, `file ${i}`, { parents: true });
    const report = await pair.upload.drain({ limits: { maxChanges: 7 } });
    expect(report.batches).toBeGreaterThan(5);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });
});

describe("property 4: content moves by hash", () => {
  test("only blobs the other side lacks are sent", async () => {
    const pair = newPair();
    const big = noise(3 * CHUNK_SIZE, 1);
    pair.do.vfs.writeFile("/big", big);
    await pair.push.drain();
    expect(pair.toMirror.stats.blobs).toBe(3);

    pair.do.vfs.writeFile("/copy", big);
    pair.do.vfs.rename("/big", "/renamed");
    await pair.push.drain();
    expect(pair.toMirror.stats.blobs).toBe(3);

    pair.mirror.vfs.appendFile("/copy", "!");
    const up = await pair.upload.drain();
    expect(up.blobs).toBe(1);
    expect(pair.toDo.stats.blobBytes).toBe(1);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });

  test("large blob sets go through putBlobs in bounded calls", async () => {
    const pair = newPair();
    pair.mirror.vfs.writeFile("/big", noise(5 * CHUNK_SIZE, 2));
    await pair.upload.drain({ inlineBlobBytes: CHUNK_SIZE, blobCallBytes: 2 * CHUNK_SIZE });
    expect(pair.toDo.stats.calls.putBlobs).toBe(3);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });
});

describe("property 5: a batch applies once and atomically", () => {
  test("a lost answer is settled on reconnect without applying twice", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/a", "one");
    pair.toMirror.failNext("applyBatch", "after");
    await expect(pair.push.drain()).rejects.toThrow("before the answer");
    expect(pair.mirror.vfs.readText("/a")).toBe("one");
    const rev = pair.mirror.vfs.rev();
    const again = await pair.push.drain();
    expect(again.changes).toBe(0);
    expect(pair.mirror.vfs.rev()).toBe(rev);
    // The DO learnt the batch arrived: a later edit on the mirror is no conflict.
    pair.mirror.vfs.writeFile("/a", "two");
    const up = await pair.upload.drain();
    expect(up.conflicts).toEqual([]);
    expect(pair.do.vfs.readText("/a")).toBe("two");
  });

  test("a lost request is sent again", async () => {
    const pair = newPair();
    pair.mirror.vfs.writeFile("/a", "one");
    pair.toDo.failNext("applyBatch", "before");
    await expect(pair.upload.drain()).rejects.toThrow("before the call");
    expect(pair.do.vfs.exists("/a")).toBe(false);
    await pair.upload.drain();
    expect(pair.do.vfs.readText("/a")).toBe("one");
  });

  test("the same batch delivered twice is a duplicate and changes nothing", async () => {
    const pair = newPair();
    await pair.push.drain();
    await pair.upload.drain();
    pair.mirror.vfs.writeFile("/a", "one");
    const outgoing = pair.mirror.endpoint.nextBatch();
    if (!outgoing) throw new Error("expected a batch");
    outgoing.batch.blobs = pair.mirror.endpoint.getBlobs(batchHashes(outgoing.batch.changes));
    const first = pair.do.endpoint.applyBatch(structuredClone(outgoing.batch));
    const rev = pair.do.vfs.rev();
    const second = pair.do.endpoint.applyBatch(structuredClone(outgoing.batch));
    expect(first.status).toBe("applied");
    expect(second).toEqual({ ...first, status: "duplicate" });
    expect(pair.do.vfs.rev()).toBe(rev);
  });
});

describe("property 6: reconnect and re-seed", () => {
  test("a mirror that restarted empty is re-seeded from the DO", async () => {
    const pair = newPair();
    richTree(pair.do.vfs);
    await settle(pair);
    const fresh = linkPair(pair.do, openSide(database(), "container", sha256Hex));
    await fresh.upload.connect();
    await settle(fresh);
    expect(tree(fresh.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a cursor older than the pruned feed triggers a full listing that removes what the DO deleted", async () => {
    let now = 1_000_000;
    const doSide = openSide(database(), "do", sha256Hex, () => now);
    const pair = linkPair(doSide, openSide(database(), "container", sha256Hex));
    doSide.vfs.writeFile("/keep", "k");
    doSide.vfs.writeFile("/gone/a", "a", { parents: true });
    doSide.vfs.writeFile("/gone/b", "b");
    await settle(pair);
    pair.mirror.vfs.writeFile("/mine", "unsynced");
    doSide.vfs.rm("/gone", { recursive: true });
    doSide.vfs.gc({ windowMs: 0 });
    now += 10_000;
    expect(doSide.vfs.gc({ windowMs: 1 }).changesPruned).toBeGreaterThan(0);
    const pushed = await pair.push.drain();
    expect(pushed.batches).toBeGreaterThan(0);
    expect(pair.mirror.vfs.exists("/gone")).toBe(false);
    expect(pair.mirror.vfs.readText("/mine")).toBe("unsynced");
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(doSide.vfs));
  });
});

describe("property 7: conflicts keep both versions", () => {
  async function conflicted(order: "push-first" | "upload-first" | "crossing") {
    const pair = newPair();
    pair.do.vfs.writeFile("/f.txt", "base");
    await settle(pair);
    pair.do.vfs.writeFile("/f.txt", "from the DO");
    pair.mirror.vfs.writeFile("/f.txt", "from the container");
    let conflicts: SyncConflict[] = [];
    if (order === "crossing") {
      const up = pair.mirror.endpoint.nextBatch();
      const down = pair.do.endpoint.nextBatch();
      if (!up || !down) throw new Error("expected batches");
      const atDo = pair.do.endpoint.applyBatch(up.batch);
      const atMirror = pair.mirror.endpoint.applyBatch(down.batch);
      pair.mirror.endpoint.acknowledge(up.batch, atDo);
      pair.do.endpoint.acknowledge(down.batch, atMirror);
      conflicts = [...atDo.conflicts, ...atMirror.conflicts];
    }
    const reports =
      order === "upload-first" ? [await pair.upload.drain(), ...(await settle(pair))] : await settle(pair);
    conflicts.push(...reports.flatMap((r) => r.conflicts));
    return { pair, conflicts };
  }

  for (const order of ["push-first", "upload-first", "crossing"] as const) {
    test(`${order}: the DO's version stays, the container's is kept as a reported copy`, async () => {
      const { pair, conflicts } = await conflicted(order);
      const copy = conflicts[0]?.copy;
      expect(conflicts[0]).toMatchObject({ path: "/f.txt", winner: "do", reason: "content" });
      expect(copy).toMatch(/^\/f\.txt\.conflict-container-[0-9a-f]{8}$/);
      expect(pair.do.vfs.readText("/f.txt")).toBe("from the DO");
      expect(pair.do.vfs.readText(copy ?? "")).toBe("from the container");
      expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
      expect(pair.do.vfs.list("/").map((e) => e.name)).toHaveLength(2);
    });
  }

  test("deleted on the DO, changed in the container: the change survives as a copy", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/dir/f", "base", { parents: true });
    await settle(pair);
    pair.do.vfs.rm("/dir", { recursive: true });
    pair.mirror.vfs.writeFile("/dir/f", "edited");
    pair.mirror.vfs.writeFile("/dir/new", "new");
    const reports = await settle(pair);
    const conflicts = reports.flatMap((r) => r.conflicts);
    expect(
      conflicts.some((c) => c.reason === "content" && c.copy?.startsWith("/dir/f.conflict-container-")),
    ).toBe(true);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    expect(pair.do.vfs.readText("/dir/new")).toBe("new");
  });

  test("an entry added under a directory the other side deleted meanwhile is kept (crossing batches)", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/b/old", "synced", { parents: true });
    await settle(pair);
    pair.mirror.vfs.writeFile("/b/new", "unsynced");
    pair.do.vfs.rm("/b", { recursive: true });
    const up = pair.mirror.endpoint.nextBatch();
    const down = pair.do.endpoint.nextBatch();
    if (!up || !down) throw new Error("expected batches");
    up.batch.blobs = pair.mirror.endpoint.getBlobs(batchHashes(up.batch.changes));
    // The DO learns of /b/new only after it built its deletion of /b.
    pair.mirror.endpoint.acknowledge(up.batch, pair.do.endpoint.applyBatch(up.batch));
    const atMirror = pair.mirror.endpoint.applyBatch(down.batch);
    pair.do.endpoint.acknowledge(down.batch, atMirror);
    expect(atMirror.conflicts).toEqual([{ path: "/b", winner: "do", reason: "kept" }]);
    expect(pair.mirror.vfs.readText("/b/new")).toBe("unsynced");
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    expect(pair.do.vfs.list("/b").map((e) => e.name)).toEqual(["new"]);
  });

  test("a directory in the container where the DO made a file: the directory is kept as a copy", async () => {
    const pair = newPair();
    await settle(pair);
    pair.do.vfs.writeFile("/x", "file on the DO");
    pair.mirror.vfs.writeFile("/x/inner", "inside", { parents: true });
    const reports = await settle(pair);
    const conflicts = reports.flatMap((r) => r.conflicts);
    expect(conflicts[0]).toMatchObject({ path: "/x", winner: "do", reason: "content" });
    expect(pair.do.vfs.readText("/x")).toBe("file on the DO");
    expect(pair.do.vfs.readText(`${conflicts[0]?.copy}/inner`)).toBe("inside");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});

describe("no echo", () => {
  test("changes applied from the peer are not sent back", async () => {
    const pair = newPair();
    for (let i = 0; i < 50; i++) pair.do.vfs.writeFile(`/f${i}`, `content ${i}`);
    await pair.push.drain();
    const doRev = pair.do.vfs.rev();
    const echo = await pair.upload.drain();
    expect(echo.changes).toBe(0);
    expect(pair.do.vfs.rev()).toBe(doRev);

    for (let i = 0; i < 50; i++) pair.mirror.vfs.writeFile(`/g${i}`, `content ${i}`);
    await pair.upload.drain();
    const mirrorRev = pair.mirror.vfs.rev();
    expect((await pair.push.drain()).changes).toBe(0);
    expect(pair.mirror.vfs.rev()).toBe(mirrorRev);
  });
});
