/**
 * A write run's page (native/write-run.h, buffer-pool.h): once the run is a stream (past
 * RUN_POPULATE_AFTER, 64 KiB) the rest of its 1 MiB page is faulted in by one madvise instead of
 * a fault per 4 KiB write; a small file's one write never pays for the page's other 255. Every
 * byte still arrives as written.
 */
import { CHUNK_SIZE } from "@computer/vfs";
import { expect, it } from "vitest";
import { loadFuse3 } from "../src/mount/fuse3-native.ts";
import { describeFreshMount } from "./mounted-mirror.ts";
import { py } from "./python.ts";

/** Write-run pages faulted in at once in this process so far. */
const populated = () => loadFuse3()?.receiveBuffers()[3] ?? 0;

describeFreshMount("write-run pages faulted in at once", { prefix: "computerd-run-pages-" }, (m) => {
  it("faults in a stream's page at once, never a small file's", async () => {
    const before = populated();
    await py(`for i in range(200):
    with open("${m.mnt}/small%d" % i, "wb") as f:
        f.write(b"x" * 3000)`);
    await m.mount.flushAll();
    expect(populated() - before).toBe(0);
    await py(`fd = os.open("${m.mnt}/stream", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(3 * 256):
    os.write(fd, bytes([i % 251]) * 4096)
os.close(fd)`);
    await m.mount.flushAll();
    // One per page the stream filled.
    expect(populated() - before).toBe(3);
    const stored = m.mirror.vfs.readFile("/stream");
    expect(stored.length).toBe(3 * CHUNK_SIZE);
    for (let i = 0; i < 3 * 256; i++) expect(stored[i * 4096]).toBe(i % 251);
    for (let i = 0; i < 200; i += 50) expect(m.mirror.vfs.readText(`/small${i}`)).toBe("x".repeat(3000));
  });
});
