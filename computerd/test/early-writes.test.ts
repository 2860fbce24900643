/**
 * Early writes through the real mount (native/fuse3.c ll_write, early-writes.ts): the FUSE loop
 * answers a write of one whole, aligned 1 MiB page before JS buffers it. Every later request
 * still sees it (fsync stores it, stat counts it, the fence waits for it), and the quota ends
 * where it ends without early writes: a short write, then ENOSPC.
 */

import { CHUNK_SIZE } from "@computer/vfs";
import { expect, it } from "vitest";
import { describeFreshMount } from "./mounted-mirror.ts";
import { py } from "./python.ts";

/** Python that writes page i (0..n-1) of `path` filled with byte i + 1, in whole-page writes. */
function writePages(path: string, n: number, flags = "os.O_WRONLY | os.O_CREAT | os.O_TRUNC"): string {
  return `fd = os.open("${path}", ${flags}, 0o644)
for i in range(${n}):
    assert os.pwrite(fd, bytes([i + 1]) * ${CHUNK_SIZE}, i * ${CHUNK_SIZE}) == ${CHUNK_SIZE}`;
}

describeFreshMount("early writes through the mount", { prefix: "computerd-early-" }, (m) => {
  const early = () => m.mount.counters.write_early ?? 0;

  it("answers whole pages in the loop; fsync stores them, stat counts them, reads see them", async () => {
    const before = early();
    const out = await py(`${writePages(`${m.mnt}/f`, 6, "os.O_RDWR | os.O_CREAT | os.O_TRUNC")}
print(os.fstat(fd).st_size)
os.fsync(fd)
print(os.pread(fd, 3, 4 * ${CHUNK_SIZE} + 7).hex())
os.close(fd)`);
    expect(out).toEqual([String(6 * CHUNK_SIZE), "050505"]);
    expect(early() - before).toBe(6);
    // fsync reached JS after the six writes: the mirror holds them without a fence.
    const stored = m.mirror.vfs.readFile("/f");
    expect(stored.length).toBe(6 * CHUNK_SIZE);
    expect([0, 1, 2, 3, 4, 5].map((i) => stored[i * CHUNK_SIZE + 99])).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("leaves writes that are not one whole aligned page to JS", async () => {
    const before = early();
    await py(`fd = os.open("${m.mnt}/g", os.O_WRONLY | os.O_CREAT, 0o644)
os.pwrite(fd, b"x" * ${CHUNK_SIZE}, 1)
os.pwrite(fd, b"y" * 65536, ${2 * CHUNK_SIZE})
os.close(fd)`);
    expect(early() - before).toBe(0);
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/g").size).toBe(2 * CHUNK_SIZE + 65536);
  });

  it("the fence waits for every early write: an overwrite of a stored file is stored whole", async () => {
    await py(`${writePages(`${m.mnt}/h`, 8)}\nos.close(fd)`);
    await m.mount.flushAll();
    const before = early();
    await py(`fd = os.open("${m.mnt}/h", os.O_WRONLY, 0o644)
for i in range(8):
    os.pwrite(fd, bytes([200 + i]) * ${CHUNK_SIZE}, i * ${CHUNK_SIZE})
os.close(fd)`);
    expect(early() - before).toBe(8);
    await m.mount.flushAll();
    const stored = m.mirror.vfs.readFile("/h");
    expect(stored.length).toBe(8 * CHUNK_SIZE);
    expect([0, 3, 7].map((i) => stored[(i + 1) * CHUNK_SIZE - 1])).toEqual([200, 203, 207]);
  });
});

const QUOTA = 3.5 * CHUNK_SIZE;

describeFreshMount("early writes at the quota", { prefix: "computerd-early-quota-", quota: QUOTA }, (m) => {
  it("takes whole pages within the room set aside, then a short write, then ENOSPC, as without them", async () => {
    const before = m.mount.counters.write_early ?? 0;
    // Read-write: a write-only handle of a new file bypasses the page cache (direct-writes.ts),
    // and a direct write from Python's unaligned buffer spans 257 pages, so the kernel sends it
    // as two requests, neither a whole page (the loop answers them as a run).
    const out = await py(`fd = os.open("${m.mnt}/big", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
total = 0
while True:
    try:
        n = os.write(fd, b"z" * ${CHUNK_SIZE})
        total += n
        print("wrote", n, flush=True)
    except OSError as e:
        print("write", errno.errorcode[e.errno], total, flush=True)
        break
os.close(fd)`);
    expect(out).toEqual([
      `wrote ${CHUNK_SIZE}`,
      `wrote ${CHUNK_SIZE}`,
      `wrote ${CHUNK_SIZE}`,
      `wrote ${CHUNK_SIZE / 2}`,
      `write ENOSPC ${QUOTA}`,
    ]);
    expect((m.mount.counters.write_early ?? 0) - before).toBe(3);
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/big").size).toBe(QUOTA);
    expect(m.mirror.vfs.usage().usedBytes).toBe(QUOTA);
  });
});
