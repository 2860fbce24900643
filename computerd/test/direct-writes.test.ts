/**
 * Write-only handles of new or truncated files bypass the page cache (FOPEN_DIRECT_IO), and the
 * file's bytes go into the page cache after their release (src/mount/direct-writes.ts), through
 * the real mount. Residency is read with cachestat(2), so it needs no timing.
 */

import { readFile } from "node:fs/promises";
import { CHUNK_SIZE } from "@computer/vfs";
import { expect, it } from "vitest";
import { describeFreshMount } from "./mounted-mirror.ts";
import { py } from "./python.ts";

/**
 * Python's `cached(path)`: the bytes of `path` the kernel's page cache holds or reclaim took from
 * it (cachestat(2): cached and evicted pages). Reclaim may take a cached page at any time, and
 * this VM's kernel runs a proactive one (DAMON's pageout of cold unmapped file pages,
 * /sys/kernel/mm/damon); the pages it took are what the mount left in the cache as well. An
 * invalidation (a dropped cache) leaves no evicted page.
 */
const CACHED = `import ctypes
class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]
class _Stat(ctypes.Structure):
    _fields_ = [(f, ctypes.c_uint64) for f in ("cache", "dirty", "writeback", "evicted", "recently_evicted")]
_libc = ctypes.CDLL(None, use_errno=True)
def cached(path):
    fd = os.open(path, os.O_RDONLY)
    stat = _Stat()
    assert _libc.syscall(451, fd, ctypes.byref(_Range(0, 0)), ctypes.byref(stat), 0) == 0, os.strerror(ctypes.get_errno())
    os.close(fd)
    return (stat.cache + stat.evicted) * os.sysconf("SC_PAGESIZE")`;

/** `cached(path)` (above) from a separate process. */
async function resident(path: string): Promise<number> {
  return Number((await py(`${CACHED}\nprint(cached("${path}"))`))[0]);
}

/** Waits (bounded) until `path` has `bytes` in the page cache; answers what it last saw. */
async function residentReaches(path: string, bytes: number): Promise<number> {
  let seen = -1;
  for (let i = 0; i < 200 && seen !== bytes; i++) {
    seen = await resident(path);
    if (seen !== bytes) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

/**
 * Pages of files the kernel has read back in after reclaim took them (the machine's count:
 * reclaim leaves a shadow of each page it takes, an invalidation does not).
 */
async function refaulted(): Promise<number> {
  const vmstat = await readFile("/proc/vmstat", "utf8");
  return Number(/^workingset_refault_file (\d+)$/m.exec(vmstat)?.[1] ?? 0);
}

/** Python writing `pages` whole pages of byte `fill` through a new handle opened with `flags`. */
function writePages(path: string, pages: number, fill: number, flags: string): string {
  return `fd = os.open("${path}", ${flags}, 0o644)
for i in range(${pages}):
    assert os.write(fd, bytes([${fill}]) * ${CHUNK_SIZE}) == ${CHUNK_SIZE}`;
}

// "keep": every open keeps the kernel's pages, so what is resident is what the writes left.
describeFreshMount(
  "direct writes (page cache kept)",
  { prefix: "computerd-direct-", fuse: { pageCache: "keep" } },
  (m) => {
    it("leaves a write-only handle's bytes out of the page cache while it is open", async () => {
      const file = `${m.mnt}/w`;
      const out = await py(`${CACHED}
${writePages(file, 4, 7, "os.O_WRONLY | os.O_CREAT | os.O_TRUNC")}
print(cached("${file}"))
os.close(fd)`);
      // Through the page cache all 4 MiB would be resident here.
      expect(out).toEqual(["0"]);
    });

    it("keeps a read-write handle's writes in the page cache", async () => {
      const file = `${m.mnt}/rw`;
      const out = await py(`${CACHED}
${writePages(file, 2, 9, "os.O_RDWR | os.O_CREAT | os.O_TRUNC")}
print(cached("${file}"))
os.close(fd)`);
      // All but the first page, which cached()'s open drops (its read is due to update atime).
      expect(out).toEqual([String(2 * CHUNK_SIZE - 4096)]);
    });
  },
);

describeFreshMount("direct writes", { prefix: "computerd-direct-auto-" }, (m) => {
  const reads = () => m.mount.counters.read ?? 0;

  it("puts the file's bytes but its first page into the page cache after the release", async () => {
    const file = `${m.mnt}/f`;
    await py(`${writePages(file, 8, 3, "os.O_WRONLY | os.O_CREAT | os.O_TRUNC")}\nos.close(fd)`);
    expect(await residentReaches(file, 8 * CHUNK_SIZE - 4096)).toBe(8 * CHUNK_SIZE - 4096);
    const before = reads();
    const refaultsBefore = await refaulted();
    const out = await py(`with open("${file}", "rb") as f:
    data = f.read()
print(len(data), data.count(3))`);
    expect(out).toEqual([`${8 * CHUNK_SIZE} ${8 * CHUNK_SIZE}`]);
    // The first page (atime: relatime.ts), the rest from the page cache, but for pages reclaim
    // took meanwhile: one read at most for each (a dropped cache reads all of it, none counted).
    expect(reads() - before).toBeGreaterThanOrEqual(1);
    expect(reads() - before - 1).toBeLessThanOrEqual((await refaulted()) - refaultsBefore);
  });

  it("shows a reader holding the file open what a truncating write-only writer wrote", async () => {
    const file = `${m.mnt}/g`;
    const out = await py(`${writePages(file, 2, 1, "os.O_RDWR | os.O_CREAT | os.O_TRUNC")}
r = os.open("${file}", os.O_RDONLY)
assert os.pread(r, ${2 * CHUNK_SIZE}, 0) == bytes([1]) * ${2 * CHUNK_SIZE}
w = os.open("${file}", os.O_WRONLY | os.O_TRUNC)
assert os.write(w, bytes([2]) * ${CHUNK_SIZE + 5}) == ${CHUNK_SIZE + 5}
print(os.pread(r, ${2 * CHUNK_SIZE}, 0) == bytes([2]) * ${CHUNK_SIZE + 5})
os.close(w)
print(os.pread(r, ${2 * CHUNK_SIZE}, 0) == bytes([2]) * ${CHUNK_SIZE + 5})
os.close(r)
os.close(fd)`);
    expect(out).toEqual(["True", "True"]);
  });

  it("a write right after the release changes the file after the store: reads see the write", async () => {
    const file = `${m.mnt}/h`;
    const out = await py(`${writePages(file, 32, 4, "os.O_WRONLY | os.O_CREAT | os.O_TRUNC")}
os.close(fd)
w = os.open("${file}", os.O_WRONLY)
assert os.pwrite(w, bytes([5]) * ${CHUNK_SIZE}, ${16 * CHUNK_SIZE}) == ${CHUNK_SIZE}
os.close(w)
with open("${file}", "rb") as f:
    data = f.read()
print(len(data), data.count(4), data[${16 * CHUNK_SIZE}:${17 * CHUNK_SIZE}] == bytes([5]) * ${CHUNK_SIZE})`);
    expect(out).toEqual([`${32 * CHUNK_SIZE} ${31 * CHUNK_SIZE} True`]);
    await m.mount.flushAll();
    const stored = m.mirror.vfs.readFile("/h");
    expect([stored[16 * CHUNK_SIZE], stored[15 * CHUNK_SIZE], stored[17 * CHUNK_SIZE]]).toEqual([5, 4, 4]);
  });

  it("a truncate right after the release is what later reads see", async () => {
    const file = `${m.mnt}/t`;
    const out = await py(`${writePages(file, 16, 6, "os.O_WRONLY | os.O_CREAT | os.O_TRUNC")}
os.close(fd)
os.truncate("${file}", 5)
with open("${file}", "rb") as f:
    print(f.read() == bytes([6]) * 5)
print(os.stat("${file}").st_size)`);
    expect(out).toEqual(["True", "5"]);
  });
});

describeFreshMount(
  "without direct writes",
  { prefix: "computerd-direct-off-", fuse: { pageCache: "keep", directWrites: false } },
  (m) => {
    it("a write-only handle's bytes stay in the page cache", async () => {
      const file = `${m.mnt}/w`;
      await py(`${writePages(file, 2, 7, "os.O_WRONLY | os.O_CREAT | os.O_TRUNC")}\nos.close(fd)`);
      expect(await resident(file)).toBe(2 * CHUNK_SIZE - 4096);
    });
  },
);
