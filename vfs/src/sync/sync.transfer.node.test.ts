/**
 * Sync properties 1, 2 and 4 of ARCHITECTURE.md, two-sided (a DO side and a mirror side, each
 * on its own node:sqlite database, linked through in-process loopbacks): pushes and uploads
 * carry every kind of change, and content moves by hash, only what the other side lacks.
 */
import { describe, expect, test } from "vitest";
import { DEEP_DIR, deepTree } from "../../test/fixtures.ts";
import { noise, richTree, settle } from "../../test/sync-harness.ts";
import { newPair, tree } from "../../test/sync-pairs.ts";
import { CHUNK_SIZE } from "../limits.ts";
import { SyncLink } from "./session.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

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

describe("files deeper than PATH_MAX", () => {
  test("sync both ways carries, changes and removes them", async () => {
    const pair = newPair();
    deepTree(pair.mirror.vfs);
    await settle(pair);
    expect(pair.do.vfs.readText(`${DEEP_DIR}/link`)).toBe("deep content");
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
    pair.do.vfs.rename(`${DEEP_DIR}/file`, `${DEEP_DIR}/renamed`);
    pair.do.vfs.writeFile(`${DEEP_DIR}/from-do`, "do");
    await settle(pair);
    expect(pair.mirror.vfs.readText(`${DEEP_DIR}/hard`)).toBe("deep content");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    pair.mirror.vfs.rm(`/${DEEP_DIR.split("/")[1]}`, { recursive: true });
    await settle(pair);
    expect(pair.do.vfs.list("/")).toEqual([]);
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

  test("blobs sent ahead of their batch (a file still being written) are not sent again with it", async () => {
    const pair = newPair();
    const data = noise(4 * CHUNK_SIZE + 9, 4);
    const stat = pair.mirror.vfs.writeFile("/growing", data);
    const hashes = pair.mirror.vfs.changes("0").changes.find((c) => c.path === "/growing")?.chunks ?? [];
    expect(hashes).toHaveLength(5);
    const sent = await pair.upload.sendAhead(hashes, { blobCallBytes: 2 * CHUNK_SIZE });
    expect(sent).toBe(stat.size);
    expect(pair.toDo.stats.calls.putBlobs).toBe(3);
    expect(pair.do.vfs.exists("/growing")).toBe(false);
    // Again: the peer has them all, so nothing goes.
    expect(await pair.upload.sendAhead(hashes)).toBe(0);
    const bytesBefore = pair.toDo.stats.blobBytes;
    const up = await pair.upload.drain({ inlineBlobBytes: CHUNK_SIZE });
    expect(up.blobs).toBe(0);
    expect(pair.toDo.stats.blobBytes).toBe(bytesBefore);
    expect(pair.do.vfs.readFile("/growing")).toEqual(data);
  });

  test("blobs memory holds are sent from there, the rest read from the store", async () => {
    const pair = newPair();
    const data = noise(3 * CHUNK_SIZE, 6);
    pair.mirror.vfs.writeFile("/held", data);
    const hashes = pair.mirror.vfs.changes("0").changes.find((c) => c.path === "/held")?.chunks ?? [];
    const held = new Map([[hashes[1] ?? "", data.slice(CHUNK_SIZE, 2 * CHUNK_SIZE)]]);
    const asked: string[] = [];
    const upload = new SyncLink(pair.mirror.endpoint, pair.toDo, {
      inMemory: (hash) => {
        asked.push(hash);
        return held.get(hash);
      },
    });
    await upload.drain({ inlineBlobBytes: CHUNK_SIZE });
    expect(asked.sort()).toEqual([...hashes].sort());
    expect(pair.do.vfs.readFile("/held")).toEqual(data);
  });

  test("large blob sets go through putBlobs in bounded calls", async () => {
    const pair = newPair();
    pair.mirror.vfs.writeFile("/big", noise(5 * CHUNK_SIZE, 2));
    await pair.upload.drain({ inlineBlobBytes: CHUNK_SIZE, blobCallBytes: 2 * CHUNK_SIZE });
    expect(pair.toDo.stats.calls.putBlobs).toBe(3);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });

  test("a putBlobs call lost mid-file fails the drain; the next drain sends the rest, nothing lost", async () => {
    const pair = newPair();
    const data = noise(6 * CHUNK_SIZE + 5, 3);
    pair.mirror.vfs.writeFile("/big", data);
    pair.toDo.failNext("putBlobs", "after");
    const options = { inlineBlobBytes: CHUNK_SIZE, blobCallBytes: 2 * CHUNK_SIZE };
    await expect(pair.upload.drain(options)).rejects.toThrow();
    expect(pair.do.vfs.exists("/big")).toBe(false);
    await pair.upload.drain(options);
    expect(pair.do.vfs.readFile("/big")).toEqual(data);
    expect(tree(pair.do.vfs)).toEqual(tree(pair.mirror.vfs));
  });
});
