import { CHUNK_SIZE } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { AnsweredWrites } from "./answered-writes.ts";
import type { LocalFs } from "./local-fs.ts";
import type { RemoteChunks } from "./remote-chunks.ts";

/** A file system that records answered writes, with inode 7 lazy until `fetched` is called. */
function fixture() {
  const buffered: [number, number][] = [];
  const armed: [number, number, number][] = [];
  let fetched: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    fetched = resolve;
  });
  const lazy = new Set([7]);
  const remoteChunks: RemoteChunks = {
    isLazy: (ino) => lazy.has(ino),
    addLazy: (ino) => lazy.add(ino),
    wait: (ino) => (lazy.has(ino) ? arrived : undefined),
  };
  const fs = {
    remoteChunks,
    writeAnswered: (_fh: number, _path: string, data: Uint8Array, offset: number) => {
      buffered.push([offset, data.length]);
    },
  } as unknown as LocalFs;
  const writes = new AnsweredWrites(
    fs,
    (ino, fh, next) => armed.push([ino, fh, next]),
    () => 10 * CHUNK_SIZE,
  );
  const fetch = () => {
    lazy.delete(7);
    fetched();
  };
  return { writes, buffered, armed, fetch };
}

describe("AnsweredWrites", () => {
  it("arms a handle after a whole write of a file that is all here, at the write's end", () => {
    const { writes, armed } = fixture();
    writes.took(3, 11, 4096, 4096, 4096);
    writes.took(3, 12, 0, 4096, 100); // short: the quota or the largest size stopped it
    writes.took(7, 13, 0, 4096, 4096); // chunks still at the Durable Object
    writes.took(3, 14, 0, 0, 0);
    expect(armed).toEqual([[3, 11, 8192]]);
  });

  it("arms a handle opened for writing at the offset given, unless its file has chunks still at the Durable Object", () => {
    const { writes, armed } = fixture();
    writes.opened(3, 21, 0);
    writes.opened(7, 22, 0);
    writes.opened(4, 23, 5000); // O_APPEND: the file's end
    expect(armed).toEqual([
      [3, 21, 0],
      [4, 23, 5000],
    ]);
  });

  it("buffers a run at once where the file is all here, and a whole page always", () => {
    const { writes, buffered } = fixture();
    writes.answered(3, 11, "/f", Buffer.alloc(4096), 4096);
    writes.answered(7, 12, "/lazy", Buffer.alloc(CHUNK_SIZE), CHUNK_SIZE);
    expect(buffered).toEqual([
      [4096, 4096],
      [CHUNK_SIZE, CHUNK_SIZE],
    ]);
  });

  it("a run over chunks still at the Durable Object waits for them, and buffered() for it", async () => {
    const { writes, buffered, fetch } = fixture();
    writes.answered(7, 12, "/lazy", Buffer.alloc(100), 10);
    let settled = false;
    const done = writes.buffered().then(() => {
      settled = true;
    });
    // A turn of the event loop: nothing can buffer it while the chunks have not arrived.
    await new Promise((resolve) => setImmediate(resolve));
    expect([buffered.length, settled]).toEqual([0, false]);
    fetch();
    await done;
    expect(buffered).toEqual([[10, 100]]);
  });
});
