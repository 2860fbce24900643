/**
 * The stored content of files as the write-back reads it: whole chunks from the vfs, kept in
 * a bounded cache of clean chunks (chunk-cache.ts), so a 128 KiB FUSE read does not fetch the
 * same 1 MiB chunk from SQLite eight times.
 */
import { CHUNK_SIZE, type Vfs } from "@computer/vfs";
import { ChunkCache } from "./chunk-cache.ts";
import type { StoredReader } from "./dirty-file.ts";

/** Stored chunks through the clean-chunk cache. */
export class StoredChunks {
  readonly cache: ChunkCache;
  private readonly vfs: Vfs;

  constructor(vfs: Vfs, cacheBytes: number) {
    this.vfs = vfs;
    this.cache = new ChunkCache(cacheBytes);
  }

  /** A stored chunk (shorter than CHUNK_SIZE only at the end of the file). */
  chunk(ino: number, path: string, idx: number): Uint8Array {
    let data = this.cache.get(ino, idx);
    if (!data) {
      data = this.vfs.readFile(path, { offset: idx * CHUNK_SIZE, length: CHUNK_SIZE });
      this.cache.set(ino, idx, data);
    }
    return data;
  }

  /** Reads stored bytes into `target`; returns the count (short at EOF). */
  readInto(ino: number, path: string, target: Uint8Array, offset: number, length: number): number {
    let done = 0;
    while (done < length) {
      const pos = offset + done;
      const idx = Math.floor(pos / CHUNK_SIZE);
      const chunk = this.chunk(ino, path, idx);
      const from = pos - idx * CHUNK_SIZE;
      if (from >= chunk.length) break;
      const n = Math.min(length - done, chunk.length - from);
      target.set(chunk.subarray(from, from + n), done);
      done += n;
    }
    return done;
  }

  /** The stored bytes of `ino` as a DirtyFile reads them (a fresh array each time). */
  reader(ino: number, path: string): StoredReader {
    return (offset, length) => {
      const out = new Uint8Array(length);
      this.readInto(ino, path, out, offset, length);
      return out;
    };
  }
}
