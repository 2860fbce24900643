/**
 * Write runs through the real mount (native/write-run.h, answered-writes.ts): once JS has opened
 * a handle for writing or taken a write through it, the FUSE loop answers the writes that continue it and hands them to
 * JS a page at a time. Every byte arrives in order; any other request (a read, a stat, another
 * handle's write, a close) sees the writes before it; the fence takes a run the writer has not
 * finished, and the run's own thread hands it over when nothing else comes; the quota still ends in a short write, then ENOSPC.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { CHUNK_SIZE } from "@computer/vfs";
import { expect, it, vi } from "vitest";
import { holdingOpen } from "./holding-open.ts";
import { describeFreshMount } from "./mounted-mirror.ts";
import { py } from "./python.ts";

/** Write sizes that cross pages at odd offsets (a compiler's, tar's, a 4 KiB stdio buffer's). */
const SIZES = [4096, 1000, 65536, 131072, 7, 8192];

/** Python writing `count` writes of SIZES in turn to `fd`, write i filled with byte i % 251. */
function writeStream(count: number): string {
  return `sizes = ${JSON.stringify(SIZES)}
for i in range(${count}):
    data = bytes([i % 251]) * sizes[i % len(sizes)]
    assert os.write(fd, data) == len(data)`;
}

/** What writeStream(count) wrote. */
function streamBytes(count: number): Buffer {
  return Buffer.concat(
    Array.from({ length: count }, (_, i) => Buffer.alloc(SIZES[i % SIZES.length] as number, i % 251)),
  );
}

describeFreshMount("write runs through the mount", { prefix: "computerd-runs-" }, (m) => {
  const joined = () => m.mount.counters["write (loop)"] ?? 0;

  it("answers the writes continuing a stream in the loop; every byte arrives in order", async () => {
    const [joinedBefore, jsBefore] = [joined(), m.mount.counters.write ?? 0];
    await py(`fd = os.open("${m.mnt}/stream", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
${writeStream(120)}
os.close(fd)`);
    // The create armed the handle: the loop answers every write (the kernel splits a write that
    // starts inside a page at that page's end: more requests than writes).
    expect((m.mount.counters.write ?? 0) - jsBefore).toBe(0);
    expect(joined() - joinedBefore).toBeGreaterThanOrEqual(120);
    await m.mount.flushAll();
    expect(Buffer.from(m.mirror.vfs.readFile("/stream")).equals(streamBytes(120))).toBe(true);
  });

  it("a new file's first write is the loop's, and so is one through an open for writing or appending", async () => {
    const [joinedBefore, jsBefore] = [joined(), m.mount.counters.write ?? 0];
    await py(`for i in range(20):
    with open("${m.mnt}/new%d" % i, "wb") as f:
        f.write(b"%d" % i)
with open("${m.mnt}/new0", "r+b") as f:
    f.write(b"X")
with open("${m.mnt}/new1", "ab") as f:
    f.write(b"Y")`);
    expect((m.mount.counters.write ?? 0) - jsBefore).toBe(0);
    expect(joined() - joinedBefore).toBe(22);
    await m.mount.flushAll();
    expect(m.mirror.vfs.readText("/new0")).toBe("X");
    expect(m.mirror.vfs.readText("/new1")).toBe("1Y");
    expect(m.mirror.vfs.readText("/new19")).toBe("19");
  });

  it("every other request sees the writes before it: a stat, a read through another handle", async () => {
    const out = await py(`fd = os.open("${m.mnt}/seen", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
r = os.open("${m.mnt}/seen", os.O_RDONLY)
bad = 0
for i in range(300):
    os.write(fd, bytes([i % 251]) * 4096)
    if os.stat("${m.mnt}/seen").st_size != (i + 1) * 4096: bad += 1
    if os.pread(r, 4096, i * 4096) != bytes([i % 251]) * 4096: bad += 1
print(bad)
os.close(r)
os.close(fd)`);
    expect(out).toEqual(["0"]);
  });

  it("two handles writing in turn to one file each keep their bytes", async () => {
    await py(`a = os.open("${m.mnt}/two", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
b = os.open("${m.mnt}/two", os.O_WRONLY)
os.lseek(b, ${CHUNK_SIZE}, os.SEEK_SET)
for i in range(200):
    os.write(a, b"a" * 4096)
    os.write(b, b"b" * 4096)
os.close(a)
os.close(b)`);
    await m.mount.flushAll();
    const stored = m.mirror.vfs.readFile("/two");
    const half = 200 * 4096;
    expect(stored.length).toBe(CHUNK_SIZE + half);
    expect(stored.subarray(0, half).every((byte) => byte === 0x61)).toBe(true);
    expect(stored.subarray(half, CHUNK_SIZE).every((byte) => byte === 0)).toBe(true);
    expect(stored.subarray(CHUNK_SIZE).every((byte) => byte === 0x62)).toBe(true);
  });

  it("writes to 200 files open at once, in turn, are the loop's, every file's bytes in order", async () => {
    // npm's extraction: hundreds of files open at once, written a piece each in turn.
    const [joinedBefore, jsBefore] = [joined(), m.mount.counters.write ?? 0];
    await py(`fds = [os.open("${m.mnt}/turn%d" % i, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for i in range(200)]
for n in range(5):
    for i, fd in enumerate(fds):
        os.write(fd, bytes([65 + i % 26]) * (1000 + n))
for fd in fds:
    os.close(fd)`);
    expect((m.mount.counters.write ?? 0) - jsBefore).toBe(0);
    // The kernel splits a write that ends inside another page: more requests than writes.
    expect(joined() - joinedBefore).toBeGreaterThanOrEqual(1000);
    await m.mount.flushAll();
    const size = Array.from({ length: 5 }, (_, n) => 1000 + n).reduce((a, b) => a + b);
    for (let i = 0; i < 200; i++) {
      const stored = m.mirror.vfs.readFile(`/turn${i}`);
      expect(stored.length).toBe(size);
      expect(stored.every((byte) => byte === 65 + (i % 26))).toBe(true);
    }
  });

  it("a remote change disarms every armed handle: the next write through each goes to JS", async () => {
    const writer = spawn(
      "python3",
      [
        "-c",
        `import os, sys
fds = [os.open("${m.mnt}/armed%d" % i, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for i in range(3)]
for fd in fds:
    os.write(fd, b"1" * 100)
print("armed", flush=True)
sys.stdin.readline()
for fd in fds:
    os.write(fd, b"2" * 100)
for fd in fds:
    os.close(fd)
print("done", flush=True)`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: writer.stdout })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe("armed");
    const jsBefore = m.mount.counters.write ?? 0;
    m.mirror.vfs.writeFile("/elsewhere", "remote\n");
    await m.mount.invalidate(["/elsewhere"]);
    writer.stdin.write("go\n");
    expect((await lines.next()).value).toBe("done");
    await once(writer, "exit");
    expect((m.mount.counters.write ?? 0) - jsBefore).toBe(3);
    await m.mount.flushAll();
    for (let i = 0; i < 3; i++)
      expect(m.mirror.vfs.readText(`/armed${i}`)).toBe("1".repeat(100) + "2".repeat(100));
  });

  it("two handles overwriting each other's bytes in turn leave the last write's", async () => {
    const [joinedBefore, jsBefore] = [joined(), m.mount.counters.write ?? 0];
    await py(`a = os.open("${m.mnt}/over", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
b = os.open("${m.mnt}/over", os.O_WRONLY)
for i in range(100):
    os.write(a, b"a" * 4096)
    os.write(b, b"b" * 4096)
os.close(a)
os.close(b)`);
    expect((m.mount.counters.write ?? 0) - jsBefore).toBe(0);
    expect(joined() - joinedBefore).toBe(200);
    await m.mount.flushAll();
    const stored = m.mirror.vfs.readFile("/over");
    expect(stored.length).toBe(100 * 4096);
    expect(stored.every((byte) => byte === 0x62)).toBe(true);
  });

  it("the fence takes the run of a writer that still holds the file open", async () => {
    const writer = await holdingOpen(`${m.mnt}/open`, writeStream(10));
    await m.mount.flushAll();
    expect(Buffer.from(m.mirror.vfs.readFile("/open")).equals(streamBytes(10))).toBe(true);
    await writer.close();
  });

  it("a run the writer leaves unfinished reaches JS on its own, with no request or fence", async () => {
    const handed = () => m.mount.counters.write_run ?? 0;
    const before = handed();
    const writer = await holdingOpen(`${m.mnt}/idle`, writeStream(10));
    // Ten writes stay inside the first page, so only the run's own flusher can hand them over.
    await vi.waitFor(() => expect(handed()).toBeGreaterThan(before), { timeout: 10_000, interval: 20 });
    await writer.close();
    await m.mount.flushAll();
    expect(Buffer.from(m.mirror.vfs.readFile("/idle")).equals(streamBytes(10))).toBe(true);
  });

  it("a file stored while another file's run is on its way keeps its attributes in the loop", async () => {
    // A checkout: one file written and closed, the next one written at once. The first is
    // stored (20 ms after its release) while the second's runs are on their way to JS; its
    // attributes then reach the loop, which answers the stat after (the kernel dropped them at
    // the write).
    const writer = await holdingOpen(
      `${m.mnt}/next`,
      `import time
end = time.monotonic() + 1
while time.monotonic() < end:
    os.write(fd, b"n" * 4096)
    time.sleep(0.0002)`,
      `with open("${m.mnt}/first", "wb") as f:
    f.write(b"first")`,
    );
    await vi.waitFor(() => expect(m.mirror.vfs.readText("/first")).toBe("first"), { timeout: 10_000 });
    const [jsBefore, loopBefore] = [m.mount.counters.getattr ?? 0, m.mount.counters["getattr (loop)"] ?? 0];
    expect(await py(`print(os.stat("${m.mnt}/first").st_size)`)).toEqual(["5"]);
    expect((m.mount.counters.getattr ?? 0) - jsBefore).toBe(0);
    expect((m.mount.counters["getattr (loop)"] ?? 0) - loopBefore).toBeGreaterThan(0);
    await writer.close();
  });
});

const QUOTA = 2.25 * CHUNK_SIZE;

describeFreshMount("write runs at the quota", { prefix: "computerd-runs-quota-", quota: QUOTA }, (m) => {
  it("takes small writes within the room set aside, then a short write, then ENOSPC", async () => {
    const before = m.mount.counters["write (loop)"] ?? 0;
    const out = await py(`fd = os.open("${m.mnt}/small", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
total = 0
while True:
    try:
        n = os.write(fd, b"q" * 40000)
        total += n
        if n < 40000: print("short", n, flush=True)
    except OSError as e:
        print("write", errno.errorcode[e.errno], total, flush=True)
        break
os.close(fd)`);
    expect(out).toEqual([`short ${QUOTA % 40000}`, `write ENOSPC ${QUOTA}`]);
    expect((m.mount.counters["write (loop)"] ?? 0) - before).toBeGreaterThan(0);
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/small").size).toBe(QUOTA);
    expect(m.mirror.vfs.usage().usedBytes).toBe(QUOTA);
  });
});
