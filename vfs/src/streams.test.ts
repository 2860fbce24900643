/** writeStream (ReadableStream and async iterables, multi-chunk, atomic replace) and ranged readStream. */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { expectFails, expectFailsAsync } from "../test/snapshot.ts";
import { bytes, text } from "../test/tree.ts";
import { CHUNK_SIZE } from "./limits.ts";
import { STORE_GROUP_CHUNKS } from "./streams.ts";

function pattern(length: number, seed = 0): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 13 + seed + (i >> 10)) & 0xff;
  return out;
}

/** Yields `data` in pieces of `piece` bytes. */
async function* pieces(data: Uint8Array, piece: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += piece) yield data.slice(i, i + piece);
}

function readableOf(data: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) {
        controller.close();
        return;
      }
      controller.enqueue(data.slice(offset, offset + piece));
      offset += piece;
    },
  });
}

/** A byte stream (`type: "bytes"`, readable with a BYOB reader, as a request body is) of `data` in `piece`-byte pieces. */
function byteStreamOf(data: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (offset >= data.length) {
        controller.close();
        // A BYOB read waiting at the end is answered by responding with 0 bytes (Streams spec).
        controller.byobRequest?.respond(0);
        return;
      }
      controller.enqueue(data.slice(offset, offset + piece));
      offset += piece;
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

describe("writeStream", () => {
  vfsTest("writes from a ReadableStream and from an async generator", async (vfs) => {
    const st = await vfs.writeStream("/a", readableOf(bytes("hello stream"), 4));
    expect(st).toMatchObject({ type: "file", size: 12, mode: 0o644 });
    expect(vfs.readText("/a")).toBe("hello stream");
    await vfs.writeStream("/b", pieces(bytes("from a generator"), 3));
    expect(vfs.readText("/b")).toBe("from a generator");
    await vfs.writeStream("/empty", pieces(new Uint8Array(0), 1));
    expect(vfs.stat("/empty").size).toBe(0);
  });

  vfsTest(
    "a large multi-chunk body in odd-sized pieces round-trips",
    async (vfs, { sql }) => {
      const data = pattern(3 * CHUNK_SIZE + 777_777, 5);
      const st = await vfs.writeStream("/big", pieces(data, 100_003));
      expect(st).toMatchObject({ size: data.length, allocated: data.length });
      expect(vfs.readFile("/big")).toEqual(data);
      const sizes = sql.exec<{ size: number }>("SELECT size FROM chunks ORDER BY idx").map((r) => r.size);
      expect(sizes).toEqual([CHUNK_SIZE, CHUNK_SIZE, CHUNK_SIZE, 777_777]);
      expect(concat(await collect(vfs.readStream("/big")))).toEqual(data);
      // 3.7 MB hashed and compared twice: about 1 s alone, over 5 s on a loaded machine.
    },
    30_000,
  );

  vfsTest(
    "a byte stream is read into whole chunks: same bytes and chunk layout as any other source",
    async (vfs, { sql }) => {
      const data = pattern(2 * CHUNK_SIZE + 4099, 9);
      const st = await vfs.writeStream("/bytes", byteStreamOf(data, 4096));
      expect(st).toMatchObject({ size: data.length, allocated: data.length });
      expect(vfs.readFile("/bytes")).toEqual(data);
      const sizes = sql.exec<{ size: number }>("SELECT size FROM chunks ORDER BY idx").map((r) => r.size);
      expect(sizes).toEqual([CHUNK_SIZE, CHUNK_SIZE, 4099]);
      await vfs.writeStream("/odd", byteStreamOf(data, CHUNK_SIZE + 1));
      expect(vfs.readFile("/odd")).toEqual(data);
      await vfs.writeStream("/none", byteStreamOf(new Uint8Array(0), 1));
      expect(vfs.stat("/none").size).toBe(0);
    },
    30_000,
  );

  vfsTest(
    "stores a body's chunks a group at a time, with no wait for the body between a group's chunks",
    async (vfs, { sql }) => {
      // A Durable Object commits whenever its code waits for I/O: the blobs stored by the time
      // the source is asked for more are always whole groups (one commit per group, not per chunk).
      const blobs = () => sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM blobs")[0]?.n ?? 0;
      const chunks = 2 * STORE_GROUP_CHUNKS + 1;
      const data = pattern(chunks * CHUNK_SIZE, 3);
      // Each chunk stamped with its index, so no two dedupe into one blob.
      for (let c = 0; c < chunks; c++) data[c * CHUNK_SIZE] = c + 1;
      const seen = new Set<number>();
      async function* watched(): AsyncGenerator<Uint8Array> {
        for (let offset = 0; offset < data.length; offset += CHUNK_SIZE / 2) {
          seen.add(blobs());
          yield data.slice(offset, offset + CHUNK_SIZE / 2);
        }
      }
      await vfs.writeStream("/grouped", watched());
      expect(vfs.readFile("/grouped")).toEqual(data);
      expect(blobs()).toBe(chunks);
      expect([...seen]).toEqual([0, STORE_GROUP_CHUNKS, 2 * STORE_GROUP_CHUNKS]);
    },
    60_000,
  );

  vfsTest("replaces an existing file atomically when the body ends", async (vfs) => {
    vfs.writeFile("/f", "old");
    const ino = vfs.stat("/f").ino;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield bytes("new ");
      await gate;
      yield bytes("content");
    }
    const pending = vfs.writeStream("/f", slow());
    await Promise.resolve();
    expect(vfs.readText("/f")).toBe("old");
    release();
    const st = await pending;
    expect(st.ino).toBe(ino);
    expect(vfs.readText("/f")).toBe("new content");
  });

  vfsTest("a failing body leaves the tree as it was", async (vfs, { sql }) => {
    vfs.writeFile("/f", "old");
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield pattern(CHUNK_SIZE + 10);
      throw new Error("source broke");
    }
    const before = JSON.stringify(sql.exec("SELECT * FROM nodes ORDER BY ino"));
    await expect(vfs.writeStream("/f", broken())).rejects.toThrow("source broke");
    await expect(vfs.writeStream("/g", broken())).rejects.toThrow("source broke");
    expect(JSON.stringify(sql.exec("SELECT * FROM nodes ORDER BY ino"))).toBe(before);
    expect(vfs.readText("/f")).toBe("old");
    expect(vfs.exists("/g")).toBe(false);
  });

  vfsTest("options: mode, parents, exclusive", async (vfs) => {
    const st = await vfs.writeStream("/x/y/z", pieces(bytes("deep"), 2), { parents: true, mode: 0o600 });
    expect(st.mode).toBe(0o600);
    expect(vfs.readText("/x/y/z")).toBe("deep");
    await vfs.writeStream("/fresh", pieces(bytes("1"), 1), { exclusive: true });
    expect(vfs.readText("/fresh")).toBe("1");
  });

  vfsTest(
    "errors fail before the body is consumed: EEXIST, EISDIR, ENOENT, ENOTDIR",
    async (vfs, { sql }) => {
      vfs.mkdir("/d");
      vfs.writeFile("/f", "x");
      vfs.symlink("nowhere", "/dangling");
      let pulled = 0;
      async function* counted(): AsyncGenerator<Uint8Array> {
        pulled++;
        yield bytes("data");
      }
      await expectFailsAsync(sql, "EEXIST", () => vfs.writeStream("/f", counted(), { exclusive: true }));
      await expectFailsAsync(sql, "EEXIST", () =>
        vfs.writeStream("/dangling", counted(), { exclusive: true }),
      );
      await expectFailsAsync(sql, "EISDIR", () => vfs.writeStream("/d", counted()));
      await expectFailsAsync(sql, "ENOENT", () => vfs.writeStream("/missing/f", counted()));
      await expectFailsAsync(sql, "ENOTDIR", () => vfs.writeStream("/f/x", counted()));
      await expectFailsAsync(sql, "ENOTDIR", () => vfs.writeStream("/f/x/y", counted(), { parents: true }));
      await expectFailsAsync(sql, "EINVAL", () => vfs.writeStream("rel", counted()));
      expect(pulled).toBe(0);
    },
  );
});

describe("readStream", () => {
  vfsTest("yields one chunk-aligned piece per pull", async (vfs) => {
    const data = pattern(2 * CHUNK_SIZE + 5);
    vfs.writeFile("/f", data);
    const parts = await collect(vfs.readStream("/f"));
    expect(parts.map((p) => p.length)).toEqual([CHUNK_SIZE, CHUNK_SIZE, 5]);
    expect(concat(parts)).toEqual(data);
  });

  vfsTest("ranges: offset, length, across chunks, past the end", async (vfs) => {
    const data = pattern(2 * CHUNK_SIZE + 100, 7);
    vfs.writeFile("/f", data);
    const read = async (offset?: number, length?: number) =>
      concat(
        await collect(
          vfs.readStream("/f", {
            ...(offset === undefined ? {} : { offset }),
            ...(length === undefined ? {} : { length }),
          }),
        ),
      );
    expect(await read(10, 20)).toEqual(data.slice(10, 30));
    expect(await read(CHUNK_SIZE - 3, 6)).toEqual(data.slice(CHUNK_SIZE - 3, CHUNK_SIZE + 3));
    expect(await read(CHUNK_SIZE - 3)).toEqual(data.slice(CHUNK_SIZE - 3));
    expect(await read(undefined, CHUNK_SIZE + 1)).toEqual(data.slice(0, CHUNK_SIZE + 1));
    expect(await read(data.length - 1, 100)).toEqual(data.slice(-1));
    expect(await read(data.length + 5, 10)).toEqual(new Uint8Array(0));
    expect(await read(3, 0)).toEqual(new Uint8Array(0));
    const ranged = await collect(vfs.readStream("/f", { offset: CHUNK_SIZE - 3, length: CHUNK_SIZE + 6 }));
    expect(ranged.map((p) => p.length)).toEqual([3, CHUNK_SIZE, 3]);
  });

  vfsTest("reads holes as zeros and follows symlinks", async (vfs) => {
    vfs.writeFile("/f", "ab");
    vfs.truncate("/f", CHUNK_SIZE + 2);
    vfs.pwrite("/f", CHUNK_SIZE, "yz");
    vfs.symlink("f", "/l");
    const all = concat(await collect(vfs.readStream("/l")));
    expect(all.length).toBe(CHUNK_SIZE + 2);
    expect(text(all.subarray(0, 2))).toBe("ab");
    expect(all.subarray(2, CHUNK_SIZE).every((b) => b === 0)).toBe(true);
    expect(text(all.subarray(CHUNK_SIZE))).toBe("yz");
  });

  vfsTest("errors: ENOENT, EISDIR, EINVAL for special files and bad ranges", (vfs, { sql }) => {
    vfs.mkdir("/d");
    vfs.mknod("/p", "fifo", 0o644);
    vfs.writeFile("/f", "x");
    expectFails(sql, "ENOENT", () => vfs.readStream("/missing"));
    expectFails(sql, "EISDIR", () => vfs.readStream("/d"));
    expectFails(sql, "EINVAL", () => vfs.readStream("/p"));
    expectFails(sql, "EINVAL", () => vfs.readStream("/f", { offset: -1 }));
    expectFails(sql, "EINVAL", () => vfs.readStream("/f", { length: -5 }));
  });
});
