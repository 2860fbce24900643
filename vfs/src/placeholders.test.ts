/**
 * Placeholders (a blob known by hash and size, its bytes elsewhere) and holds (blobs kept for a
 * peer): a file can point at a placeholder, reading it is EIO until its bytes are stored, and
 * GC keeps a held blob until the peer releases it at the hold's sequence number.
 */
import { describe, expect, sha256Hex, vfsTest } from "../test/backend.ts";
import { FsError } from "./errors.ts";
import { GC_WINDOW_MS } from "./gc.ts";
import { CHUNK_SIZE } from "./limits.ts";
import { ChunkUnavailableError } from "./placeholders.ts";

function filled(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return err instanceof FsError || err instanceof ChunkUnavailableError ? err.code : String(err);
  }
  return undefined;
}

describe("placeholders", () => {
  vfsTest("a file on a placeholder reads EIO, never zeros, until the bytes are stored", (vfs) => {
    const first = filled(CHUNK_SIZE, 1);
    const last = filled(1000, 2);
    const refs = [
      { hash: sha256Hex(first), size: first.length },
      { hash: sha256Hex(last), size: last.length },
    ];
    vfs.putPlaceholders(refs);
    expect(vfs.missingBlobs(refs.map((r) => r.hash))).toEqual([]);
    vfs.setChunks(
      "/big",
      refs.map((r) => r.hash),
      CHUNK_SIZE + 1000,
      { mode: 0o644 },
    );
    expect(vfs.stat("/big").size).toBe(CHUNK_SIZE + 1000);
    expect(vfs.placeholderInodes()).toEqual([vfs.stat("/big").ino]);
    expect(vfs.placeholderChunks(vfs.stat("/big").ino, 0, 10).map((c) => c.idx)).toEqual([0, 1]);
    expect(codeOf(() => vfs.readFile("/big", { offset: 0, length: 10 }))).toBe("EIO");
    expect(codeOf(() => vfs.readFile("/big", { offset: CHUNK_SIZE, length: 10 }))).toBe("EIO");
    expect(vfs.getBlob(refs[0]?.hash ?? "")).toBeUndefined();

    expect(vfs.putBlob(first)).toBe(refs[0]?.hash);
    expect(vfs.readFile("/big", { offset: 0, length: CHUNK_SIZE })).toEqual(first);
    expect(codeOf(() => vfs.readFile("/big", { offset: CHUNK_SIZE, length: 10 }))).toBe("EIO");
    expect(vfs.placeholderChunks(vfs.stat("/big").ino, 0, 10).map((c) => c.idx)).toEqual([1]);
    vfs.putBlob(last);
    expect(vfs.readFile("/big")).toEqual(new Uint8Array([...first, ...last]));
    expect(vfs.placeholderInodes()).toEqual([]);
  });

  vfsTest("a placeholder never replaces stored bytes", (vfs) => {
    const data = filled(5000, 3);
    const hash = vfs.putBlob(data);
    vfs.putPlaceholders([{ hash, size: data.length }]);
    expect(vfs.isPlaceholder(hash)).toBe(false);
    expect(vfs.getBlob(hash)).toEqual(data);
  });

  vfsTest("GC drops unused placeholders past the window and says which", (vfs, { clock }) => {
    const data = filled(3000, 4);
    const hash = sha256Hex(data);
    vfs.putPlaceholders([{ hash, size: data.length }]);
    clock.advance(GC_WINDOW_MS + 1);
    expect(vfs.gc().placeholdersDeleted).toEqual([hash]);
    expect(vfs.missingBlobs([hash])).toEqual([hash]);
  });
});

describe("holds", () => {
  vfsTest("a held blob outlives its last file until released at its sequence", (vfs, { clock }) => {
    vfs.writeFile("/f", filled(4000, 5));
    const hash = sha256Hex(filled(4000, 5));
    const seq = vfs.holdBlobs([hash]);
    vfs.unlink("/f");
    clock.advance(GC_WINDOW_MS + 1);
    expect(vfs.gc().blobsDeleted).toBe(0);
    expect(vfs.heldBlobs()).toBe(1);
    // Released as of an older sequence: held again since, so it stays.
    expect(vfs.releaseBlobs([hash], seq - 1)).toBe(0);
    expect(vfs.gc().blobsDeleted).toBe(0);
    expect(vfs.releaseBlobs([hash], seq)).toBe(1);
    expect(vfs.gc().blobsDeleted).toBe(1);
  });

  vfsTest("holding again moves the hold to the new sequence", (vfs) => {
    const hash = vfs.putBlob(filled(100, 6));
    const first = vfs.holdBlobs([hash]);
    const second = vfs.holdBlobs([hash]);
    expect(second).toBeGreaterThan(first);
    expect(vfs.releaseBlobs([hash], first)).toBe(0);
    expect(vfs.releaseBlobs([hash], second)).toBe(1);
    vfs.holdBlobs([hash]);
    vfs.releaseAllHolds();
    expect(vfs.heldBlobs()).toBe(0);
  });
});
