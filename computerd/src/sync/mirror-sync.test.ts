/**
 * The daemon's sync engine in process (mount backend "none", writes made through the mount's
 * LocalFs) against a stand-in DO over the real dial-back link: pushes are applied and
 * committed before they are answered; buffered writes reach the DO by the fence; writes stream
 * while a command runs; links that drop mid-push or mid-upload reconnect and converge without
 * conflicts; a restarted empty daemon is re-seeded from the DO.
 */
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { CHUNK_SIZE } from "@computer/vfs";
import { DEFAULT_LIMITS } from "@computer/vfs/sync";
import { describe, expect, test, vi } from "vitest";
import { decode, fakeDo, start, writeChunks, writeThroughMount } from "../../test/mirror-sync-harness.ts";
import { tree } from "../../test/stand-in-do.ts";

describe("MirrorSync", () => {
  test("a push is applied to the mirror and committed before it is answered", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    fake.vfs.writeFile("/notes/hello.txt", "from the DO\n", { parents: true });
    await fake.push();
    // A second connection to the mirror file sees only what was committed.
    const db = new DatabaseSync(daemon.workspace.mirror.file, { readOnly: true });
    const rows = db.prepare("SELECT name FROM dirents WHERE name = 'hello.txt'").all();
    db.close();
    expect(rows).toHaveLength(1);
    expect(daemon.workspace.mount.fs.lookup("/notes/hello.txt")?.size).toBe(12);
  });

  test("a large file from the DO is hashes only until read: a read fetches its chunks by hash; offline it is EIO", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    const big = new Uint8Array(6 * 1024 * 1024 + 77);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
    fake.vfs.writeFile("/big.bin", big);
    await fake.push();
    const { mount, mirror } = daemon.workspace;
    const ino = mirror.vfs.stat("/big.bin").ino;
    // The push carried no bytes of it: every chunk is a placeholder, reading one is EIO.
    expect(mirror.vfs.placeholderChunks(ino, 0, 100)).toHaveLength(7);
    expect(() => mirror.vfs.readFile("/big.bin", { length: 10 })).toThrow(/EIO/);
    const remote = mount.fs.remoteChunks;
    if (!remote) throw new Error("the workspace has no chunk fetcher");
    // A read of the first chunk waits for it and fetches ahead.
    await remote.wait(ino, 0, 4096, true);
    expect(mirror.vfs.readFile("/big.bin", { length: 4096 })).toEqual(big.subarray(0, 4096));
    await remote.wait(ino, 0, big.length, true);
    expect(remote.wait(ino, 0, big.length, true)).toBeUndefined();
    expect(mirror.vfs.readFile("/big.bin")).toEqual(big);
    // Fetched and committed: the DO may let them go.
    await expect.poll(() => fake.vfs.heldBlobs(), { timeout: 30_000 }).toBe(0);

    fake.vfs.writeFile(
      "/other.bin",
      big.map((b) => b ^ 0xff),
    );
    await fake.push();
    // Offline: the link drops and the daemon's dial-backs are refused.
    fake.secret = "refused";
    fake.drop();
    await expect.poll(() => daemon.workspace.sync.linked, { timeout: 30_000 }).toBe(false);
    const other = mirror.vfs.stat("/other.bin").ino;
    await expect(remote.wait(other, 0, 10, true)).rejects.toMatchObject({ code: "EIO" });
    // Nothing was stored for it: still EIO, never zeros.
    expect(() => mirror.vfs.readFile("/other.bin", { length: 10 })).toThrow(/EIO/);
  }, 120_000);

  test("a lazy file changed at the DO while its chunks are fetched reads as the new version only", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    const version = (seed: number) => {
      const out = new Uint8Array(5 * 1024 * 1024);
      for (let i = 0; i < out.length; i++) out[i] = (i * 131 + seed) & 0xff;
      return out;
    };
    fake.vfs.writeFile("/data.bin", version(1));
    await fake.push();
    const { mount, mirror } = daemon.workspace;
    const ino = mirror.vfs.stat("/data.bin").ino;
    const waiting = mount.fs.remoteChunks?.wait(ino, 0, 5 * 1024 * 1024, true);
    expect(waiting).toBeDefined();
    fake.vfs.writeFile("/data.bin", version(2));
    await fake.push();
    await waiting;
    expect(mirror.vfs.stat("/data.bin").ino).toBe(ino);
    expect(mirror.vfs.readFile("/data.bin")).toEqual(version(2));
  }, 120_000);

  test("writes still buffered in the mount (file open) are in the DO when the fence answers", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    writeThroughMount(daemon, "/open.txt", "still open", false);
    writeThroughMount(daemon, "/closed.txt", "closed");
    const fence = await fake.fence();
    expect(fence.rev).toBe(fake.vfs.rev());
    expect(decode(fake.vfs.readFile("/open.txt"))).toBe("still open");
    expect(decode(fake.vfs.readFile("/closed.txt"))).toBe("closed");
  });

  test("uploads go in batches of UPLOAD_LIMITS, larger than the engine's default: 1,500 new files in one", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake, {}, {});
    await daemon.connect();
    await fake.fence();
    daemon.workspace.mount.fs.mkdir("/many", 0o755);
    const files = 3 * DEFAULT_LIMITS.maxChanges;
    for (let i = 0; i < files; i++) writeThroughMount(daemon, `/many/f${i}`, `${i}\n`);
    const before = fake.uploads;
    await fake.fence();
    expect(fake.uploads - before).toBe(1);
    expect(tree(fake.vfs)).toEqual(tree(daemon.workspace.mirror.vfs));
  });

  test("a fence with nothing left to send answers the last upload's revision without asking the DO", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    writeThroughMount(daemon, "/sent.txt", "sent");
    const sent = await fake.fence();
    expect(sent.rev).toBe(fake.vfs.rev());
    const again = await fake.fence();
    expect(again.rev).toBe(sent.rev);
    expect(fake.revCalls).toBe(0);
  });

  test("while a command runs, its writes stream to the DO before the fence", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    await fake.fence();
    daemon.busy = true;
    daemon.workspace.mount.fs.mkdir("/stream", 0o755);
    for (let i = 0; i < 50; i++) writeThroughMount(daemon, `/stream/f${i}`, `${i}\n`);
    await expect.poll(() => fake.vfs.exists("/stream/f49"), { timeout: 5000 }).toBe(true);
    expect(daemon.workspace.uploader.counters.uploads).toBeGreaterThan(0);
    daemon.busy = false;
    await fake.fence();
    expect(tree(fake.vfs)).toEqual(tree(daemon.workspace.mirror.vfs));
  });

  test("the stored chunks of a large file still being written reach the DO ahead of the file", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    await fake.fence();
    const { mount, mirror, sync } = daemon.workspace;
    const storedPages = () =>
      (mirror.vfs.changes("0").changes.find((c) => c.path === "/big.bin")?.chunks ?? []).length;
    const { fh } = mount.fs.create("/big.bin", 0o644);
    const page = (i: number) => new Uint8Array(CHUNK_SIZE).fill(i + 1);
    for (let i = 0; i < 5; i++) mount.fs.write(fh, "/big.bin", page(i), i * CHUNK_SIZE);
    // The write-back stores whole pages of an open file once writes pause.
    await expect.poll(storedPages, { timeout: 10_000 }).toBe(5);
    // Hashed ahead and stored: held in memory for the upload (mirror/recent-blobs.ts).
    expect(mirror.recent.bytes).toBe(5 * CHUNK_SIZE);
    // Uploads send only changes that have settled; the writer stores one more page right after
    // this first sample, so the file's feed record is newer than anything the next upload sends.
    await sync.uploadSome();
    mount.fs.write(fh, "/big.bin", page(5), 5 * CHUNK_SIZE);
    await expect.poll(storedPages, { timeout: 10_000 }).toBe(6);
    // Chunks went ahead once that sample has settled: the round answers true (the next follows
    // at once), not false (done) or "settling" after the interval.
    let outcome: Awaited<ReturnType<typeof sync.uploadSome>> = "settling";
    await vi.waitFor(
      async () => {
        outcome = await sync.uploadSome();
        expect(outcome).not.toBe("settling");
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(outcome).toBe(true);
    const hash = (i: number) => createHash("sha256").update(page(i)).digest("hex");
    for (let i = 0; i < 6; i++) expect(fake.vfs.getBlob(hash(i)), `page ${i}`).toBeDefined();
    // As HTTP bodies, not messages on the link (server/blob-post.ts).
    expect(fake.blobPosts).toBeGreaterThan(0);
    // Let go of once sent.
    expect(mirror.recent.bytes).toBe(0);
    expect(fake.vfs.exists("/big.bin")).toBe(false);
    mount.fs.flush(fh);
    mount.fs.release(fh);
    await fake.fence();
    expect(mirror.recent.bytes).toBe(0);
    expect(tree(fake.vfs)).toEqual(tree(mirror.vfs));
  }, 30_000);

  test("a large file written without a pause is stored as it goes, so its chunks can go ahead", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    const { mount, mirror } = daemon.workspace;
    const storedPages = () =>
      (mirror.vfs.changes("0").changes.find((c) => c.path === "/stream.bin")?.chunks ?? []).length;
    const { fh } = mount.fs.create("/stream.bin", 0o644);
    // Each write follows the last at once (the event loop turns, no 5 ms pause): a bare mount
    // would store nothing until the writes stop.
    let written = 0;
    while (storedPages() < 4 && written < 64) {
      mount.fs.write(fh, "/stream.bin", new Uint8Array(CHUNK_SIZE).fill(written + 1), written * CHUNK_SIZE);
      written++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(storedPages()).toBeGreaterThanOrEqual(4);
    expect(written).toBeLessThan(64);
    mount.fs.flush(fh);
    mount.fs.release(fh);
  });

  test("a blob upload the DO fails fails the fence; the next fence sends the blobs again, nothing lost", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    await fake.fence();
    const { mirror } = daemon.workspace;
    writeChunks(daemon, "/large.bin", 6);
    fake.failBlobPosts = 1;
    await expect(fake.fence()).rejects.toThrow(/blob upload \(503\)/);
    expect(fake.vfs.exists("/large.bin")).toBe(false);
    // The retry reads the blobs from the mirror, not from the pages the failed upload sent.
    expect(mirror.recent.bytes).toBe(0);
    await fake.fence();
    expect(fake.blobPosts).toBeGreaterThan(0);
    expect(tree(fake.vfs)).toEqual(tree(mirror.vfs));
  }, 30_000);

  test("a DO without the blob upload (an older Worker) gets the blobs on the link", async () => {
    const fake = await fakeDo();
    fake.blobRoute = false;
    const daemon = await start(fake);
    await daemon.connect();
    const { mirror } = daemon.workspace;
    writeChunks(daemon, "/large.bin", 3);
    await fake.fence();
    expect(fake.blobPosts).toBe(0);
    expect(tree(fake.vfs)).toEqual(tree(mirror.vfs));
  }, 30_000);

  test("no link: the fence rejects (the DO leaves the sync pending); the next link uploads", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await expect(daemon.workspace.sync.fence()).rejects.toThrow("no link");
    writeThroughMount(daemon, "/before-link.txt", "x");
    daemon.workspace.mount.fs.flushAll();
    await daemon.connect();
    await expect.poll(() => fake.vfs.exists("/before-link.txt")).toBe(true);
  });

  test.each([
    ["mid-upload (applied, answer lost)", "upload"],
    ["mid-push (in flight)", "push"],
  ] as const)("a link dropped %s reconnects and converges without conflicts", async (_name, direction) => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    fake.vfs.mkdir("/do", { recursive: true });
    for (let i = 0; i < 30; i++) fake.vfs.writeFile(`/do/f${i}`, `do ${i}\n`);
    await fake.fence();
    fake.fault = { direction, after: (direction === "push" ? fake.pushes : fake.uploads) + 2 };
    daemon.workspace.mount.fs.mkdir("/ct", 0o755);
    for (let i = 0; i < 30; i++) writeThroughMount(daemon, `/ct/f${i}`, `ct ${i}\n`);
    const limits = { limits: { maxChanges: 10 } };
    const session = await fake.session();
    const failed =
      direction === "push" ? session.push.drain(limits) : daemon.workspace.sync.fence().then(() => undefined);
    await expect(failed).rejects.toThrow();
    await session.closed;
    await daemon.connect();
    await fake.push();
    const fence = await fake.fence();
    expect(fence.conflicts).toEqual([]);
    await fake.push();
    expect(tree(fake.vfs)).toEqual(tree(daemon.workspace.mirror.vfs));
    expect(tree(fake.vfs).size).toBe(62);
  });

  test("a daemon restarted empty is re-seeded from the DO; one restarted with its state resumes", async () => {
    const fake = await fakeDo();
    const first = await start(fake);
    await first.connect();
    fake.vfs.writeFile("/kept.txt", "DO data");
    await fake.push();
    writeThroughMount(first, "/from-container.txt", "container data");
    await fake.fence();
    const stateDir = first.config.stateDir;
    await first.close();

    const resumed = await start(fake, { stateDir });
    await resumed.connect();
    await fake.push();
    expect(tree(resumed.workspace.mirror.vfs)).toEqual(tree(fake.vfs));
    await resumed.close();

    const empty = await start(fake);
    await empty.connect();
    await fake.push();
    expect(tree(empty.workspace.mirror.vfs)).toEqual(tree(fake.vfs));
    expect(decode(empty.workspace.mirror.vfs.readFile("/from-container.txt"))).toBe("container data");
    const fence = await fake.fence();
    expect(fence.conflicts).toEqual([]);
  });

  test("a change on both sides is reported as a conflict by the fence; nothing is lost", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    fake.vfs.writeFile("/both.txt", "base");
    await fake.push();
    fake.vfs.writeFile("/both.txt", "DO version");
    writeThroughMount(daemon, "/both.txt", "container version");
    const fence = await fake.fence();
    expect(fence.conflicts).toMatchObject([{ path: "/both.txt", winner: "do", reason: "content" }]);
    await fake.push();
    const mirror = daemon.workspace.mirror.vfs;
    expect(decode(mirror.readFile("/both.txt"))).toBe("DO version");
    const copy = fence.conflicts[0]?.copy ?? "";
    expect(decode(mirror.readFile(copy))).toBe("container version");
    expect(tree(fake.vfs)).toEqual(tree(mirror));
  });
});
