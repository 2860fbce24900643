/**
 * The pages of write runs (native/buffer-pool.h): a page JS no longer references goes back to
 * the pool once V8 has collected its Buffer, and the loop writes the next run into it instead
 * of a fresh allocation (whose pages it would fault in one by one). A reused page must carry
 * only the new file's bytes, and one JS still holds (a cached chunk) is never handed out. A run
 * that grows past 64 KiB (a stream) has the rest of its page faulted in at once; a small file's
 * one write does not.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { CHUNK_SIZE } from "@computer/vfs";
import { expect, it } from "vitest";
import { loadFuse3 } from "../src/mount/fuse3-native.ts";
import { describeFreshMount } from "./mounted-mirror.ts";
import { py } from "./python.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** [write-run pages reused from the pool, allocated] in this process so far. */
function runPages(): [number, number] {
  const counts = loadFuse3()?.receiveBuffers() ?? new Float64Array(5);
  return [counts[3] ?? 0, counts[4] ?? 0];
}

/** Write-run pages faulted in at once so far. */
const populated = () => loadFuse3()?.receiveBuffers()[5] ?? 0;

/** Python writing `mib` MiB of byte `fill` to `path` in 4 KiB writes (each joins a run). */
function writeSmall(path: string, mib: number, fill: number): string {
  return `fd = os.open("${path}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(${mib * 256}):
    os.write(fd, bytes([${fill}]) * 4096)
os.close(fd)`;
}

/** Collects garbage until the pool holds at least `pages` more run pages' worth of buffers. */
async function collectUntilPooled(pooledBefore: number, pages: number): Promise<void> {
  for (let round = 0; round < 50; round++) {
    gc();
    // Node runs a Buffer's native finalizer after the collection, from the event loop.
    await new Promise((resolve) => setTimeout(resolve, 20));
    if ((loadFuse3()?.receiveBuffers()[2] ?? 0) >= pooledBefore + pages) return;
  }
}

describeFreshMount("write-run pages from the pool", { prefix: "computerd-run-pages-" }, (m) => {
  it("writes a new run into a page JS dropped; the new file holds only its own bytes", async () => {
    const [, freshBefore] = runPages();
    await py(writeSmall(`${m.mnt}/first`, 4, 0x61));
    await m.mount.flushAll();
    const [reusedAfterFirst, freshAfterFirst] = runPages();
    expect(freshAfterFirst - freshBefore).toBeGreaterThanOrEqual(1);

    // Deleting the file drops its cached chunks: nothing in JS holds its run pages any more.
    const pooledBefore = loadFuse3()?.receiveBuffers()[2] ?? 0;
    await py(`os.unlink("${m.mnt}/first")`);
    await m.mount.flushAll();
    await collectUntilPooled(pooledBefore, 4);

    await py(writeSmall(`${m.mnt}/second`, 4, 0x62));
    await m.mount.flushAll();
    const [reusedAfterSecond] = runPages();
    expect(reusedAfterSecond - reusedAfterFirst).toBeGreaterThanOrEqual(1);
    const stored = m.mirror.vfs.readFile("/second");
    expect(stored.length).toBe(4 * CHUNK_SIZE);
    expect(stored.every((byte) => byte === 0x62)).toBe(true);
    expect(await py(`print(open("${m.mnt}/second", "rb").read() == b"b" * ${4 * CHUNK_SIZE})`)).toEqual([
      "True",
    ]);
  });

  it("never hands out a page a cached chunk still holds", async () => {
    await py(writeSmall(`${m.mnt}/kept`, 2, 0x63));
    await m.mount.flushAll();
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Another file written meanwhile takes pages from the pool or fresh ones, never the kept file's.
    await py(writeSmall(`${m.mnt}/other`, 4, 0x64));
    await m.mount.flushAll();
    const kept = m.mirror.vfs.readFile("/kept");
    expect(kept.every((byte) => byte === 0x63)).toBe(true);
    expect(await py(`print(open("${m.mnt}/kept", "rb").read() == b"c" * ${2 * CHUNK_SIZE})`)).toEqual([
      "True",
    ]);
  });

  it("faults in a stream's page at once, never a small file's", async () => {
    const before = populated();
    await py(`for i in range(200):
    with open("${m.mnt}/small%d" % i, "wb") as f:
        f.write(b"x" * 3000)`);
    await m.mount.flushAll();
    expect(populated() - before).toBe(0);
    await py(writeSmall(`${m.mnt}/stream`, 3, 0x65));
    await m.mount.flushAll();
    // One per page the stream filled (its first run reaches the page's end in pieces of 4 KiB).
    expect(populated() - before).toBe(3);
    expect(m.mirror.vfs.readFile("/stream").every((byte) => byte === 0x65)).toBe(true);
  });
});
