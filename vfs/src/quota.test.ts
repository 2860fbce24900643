/** The per-computer quota: usage accounting and ENOSPC from every growing write, with nothing changed. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails, expectFailsAsync } from "../test/snapshot.ts";
import { bytes } from "../test/tree.ts";
import { CHUNK_SIZE } from "./limits.ts";

async function* pieces(
  data: Uint8Array,
  piece: number,
  counter?: { pulled: number },
): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += piece) {
    if (counter) counter.pulled++;
    yield data.slice(i, i + piece);
  }
}

describe("usage", () => {
  vfsTest("counts stored bytes; hard links once; deletes free them", (vfs) => {
    expect(vfs.usage()).toEqual({ usedBytes: 0, quotaBytes: null });
    vfs.writeFile("/a", "12345");
    vfs.mkdir("/d");
    vfs.symlink("a", "/l");
    vfs.link("/a", "/d/a2");
    expect(vfs.usage().usedBytes).toBe(5);
    vfs.writeFile("/b", "123");
    expect(vfs.usage().usedBytes).toBe(8);
    vfs.unlink("/a");
    expect(vfs.usage().usedBytes).toBe(8);
    vfs.rm("/d", { recursive: true });
    expect(vfs.usage().usedBytes).toBe(3);
    vfs.truncate("/b", 1);
    expect(vfs.usage().usedBytes).toBe(1);
  });
});

describe("setQuota", () => {
  vfsTest("sets, reports and clears the quota", (vfs) => {
    vfs.setQuota(1000);
    expect(vfs.usage()).toEqual({ usedBytes: 0, quotaBytes: 1000 });
    vfs.setQuota(0);
    expect(vfs.usage().quotaBytes).toBe(0);
    vfs.setQuota(null);
    expect(vfs.usage().quotaBytes).toBeNull();
    vfs.writeFile("/f", new Uint8Array(5000));
  });

  vfsTest("errors: EINVAL for negative, fractional or non-finite sizes", (vfs, { sql }) => {
    vfs.setQuota(10);
    expectFails(sql, "EINVAL", () => vfs.setQuota(-1));
    expectFails(sql, "EINVAL", () => vfs.setQuota(1.5));
    expectFails(sql, "EINVAL", () => vfs.setQuota(Number.NaN));
    expectFails(sql, "EINVAL", () => vfs.setQuota(Number.POSITIVE_INFINITY));
  });
});

describe("ENOSPC", () => {
  vfsTest("writeFile: new files and overwrites, exactly at the limit and one byte past", (vfs, { sql }) => {
    vfs.setQuota(10);
    expectFails(sql, "ENOSPC", () => vfs.writeFile("/f", "12345678901"));
    expectFails(sql, "ENOSPC", () => vfs.writeFile("/p/q/f", "12345678901", { parents: true }));
    vfs.writeFile("/f", "1234567890");
    expect(vfs.usage().usedBytes).toBe(10);
    vfs.writeFile("/f", "abcdefghij");
    expectFails(sql, "ENOSPC", () => vfs.writeFile("/f", "abcdefghijk"));
    expectFails(sql, "ENOSPC", () => vfs.writeFile("/g", "x"));
    vfs.writeFile("/f", "abc");
    vfs.writeFile("/g", "1234567");
    expect(vfs.usage().usedBytes).toBe(10);
  });

  vfsTest("writeFile: a multi-chunk body stores nothing when it does not fit", (vfs, { sql }) => {
    vfs.setQuota(2 * CHUNK_SIZE);
    expectFails(sql, "ENOSPC", () => vfs.writeFile("/big", new Uint8Array(2 * CHUNK_SIZE + 1).fill(7)));
    expect(sql.exec("SELECT COUNT(*) AS n FROM blobs")[0]?.n).toBe(0);
  });

  vfsTest("pwrite: growth fails, overwriting in place does not", (vfs, { sql }) => {
    vfs.setQuota(10);
    vfs.writeFile("/f", "12345678");
    expectFails(sql, "ENOSPC", () => vfs.pwrite("/f", 8, "abc"));
    expectFails(sql, "ENOSPC", () => vfs.pwrite("/f", 20, "a"));
    vfs.pwrite("/f", 0, "abcdefgh");
    vfs.pwrite("/f", 8, "yz");
    expect(vfs.readText("/f")).toBe("abcdefghyz");
    expectFails(sql, "ENOSPC", () => vfs.pwrite("/f", 10, "!"));
  });

  vfsTest("pwrite: a write into a new chunk is charged for that chunk's stored bytes", (vfs, { sql }) => {
    vfs.setQuota(100);
    vfs.writeFile("/f", "x");
    vfs.truncate("/f", 10 * CHUNK_SIZE);
    vfs.pwrite("/f", 5 * CHUNK_SIZE, "abc");
    expect(vfs.usage().usedBytes).toBe(4);
    expectFails(sql, "ENOSPC", () => vfs.pwrite("/f", 6 * CHUNK_SIZE + 97, "abc"));
  });

  vfsTest("appendFile: on a new and on an existing file", (vfs, { sql }) => {
    vfs.setQuota(6);
    expectFails(sql, "ENOSPC", () => vfs.appendFile("/log", "1234567"));
    vfs.appendFile("/log", "1234");
    expectFails(sql, "ENOSPC", () => vfs.appendFile("/log", "567"));
    vfs.appendFile("/log", "56");
    expect(vfs.readText("/log")).toBe("123456");
  });

  vfsTest("truncate: growing makes a hole and is never charged", (vfs) => {
    vfs.setQuota(4);
    vfs.writeFile("/f", "abcd");
    const st = vfs.truncate("/f", 100 * CHUNK_SIZE);
    expect(st.size).toBe(100 * CHUNK_SIZE);
    expect(vfs.usage().usedBytes).toBe(4);
  });

  vfsTest("writeStream: fails early, leaves the tree and usage untouched", async (vfs, { sql }) => {
    vfs.setQuota(3 * CHUNK_SIZE);
    vfs.writeFile("/keep", "k");
    const counter = { pulled: 0 };
    const body = new Uint8Array(10 * CHUNK_SIZE).fill(1);
    await expectFailsAsync(sql, "ENOSPC", () => vfs.writeStream("/big", pieces(body, CHUNK_SIZE, counter)), {
      blobs: false,
    });
    expect(counter.pulled).toBeLessThan(10);
    expect(vfs.exists("/big")).toBe(false);
    expect(vfs.usage().usedBytes).toBe(1);
  });

  vfsTest("writeStream: replacing a file may reuse its bytes; one byte more fails", async (vfs, { sql }) => {
    vfs.setQuota(100);
    vfs.writeFile("/f", new Uint8Array(90));
    await vfs.writeStream("/f", pieces(new Uint8Array(100).fill(2), 7));
    expect(vfs.usage().usedBytes).toBe(100);
    await expectFailsAsync(sql, "ENOSPC", () => vfs.writeStream("/f", pieces(new Uint8Array(101), 7)), {
      blobs: false,
    });
    expect(vfs.readFile("/f")).toEqual(new Uint8Array(100).fill(2));
  });

  vfsTest("writeStream: space taken while the body streams fails the final swap", async (vfs, { sql }) => {
    vfs.setQuota(10);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield bytes("12345");
      await gate;
      yield bytes("6");
    }
    const pending = vfs.writeStream("/s", slow());
    await Promise.resolve();
    vfs.writeFile("/other", "abcde");
    release();
    await expectFailsAsync(sql, "ENOSPC", () => pending, { blobs: false });
    expect(vfs.exists("/s")).toBe(false);
    expect(vfs.usage().usedBytes).toBe(5);
  });

  vfsTest("a quota below usage blocks growth but allows shrinking and deleting", (vfs, { sql }) => {
    vfs.writeFile("/a", "1234567890");
    vfs.writeFile("/b", "12345");
    vfs.setQuota(5);
    expect(vfs.usage()).toEqual({ usedBytes: 15, quotaBytes: 5 });
    expectFails(sql, "ENOSPC", () => vfs.appendFile("/b", "6"));
    expectFails(sql, "ENOSPC", () => vfs.writeFile("/c", "1"));
    vfs.truncate("/a", 2);
    vfs.writeFile("/b", "1");
    vfs.unlink("/a");
    expect(vfs.usage().usedBytes).toBe(1);
    vfs.writeFile("/c", "1234");
    expect(vfs.usage().usedBytes).toBe(5);
  });

  vfsTest("metadata-only operations are never refused at the limit", (vfs) => {
    vfs.setQuota(1);
    vfs.writeFile("/f", "x");
    vfs.mkdir("/d");
    vfs.symlink("f", "/l");
    vfs.link("/f", "/h");
    vfs.mknod("/p", "fifo", 0o644);
    vfs.writeFile("/empty", "");
    vfs.rename("/f", "/d/f");
    vfs.chmod("/d/f", 0o600);
    vfs.setxattr("/d/f", "user.k", bytes("v"));
    expect(vfs.usage().usedBytes).toBe(1);
  });
});
