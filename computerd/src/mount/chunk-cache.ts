/**
 * A bounded LRU of clean (flushed) file chunks, so a 128 KiB FUSE read does not
 * fetch the same 1 MiB chunk from SQLite eight times. Entries are keyed by inode
 * and chunk index and dropped whenever that inode's content changes.
 */

/** Clean chunk cache; `maxBytes` bounds the memory it holds. */
export class ChunkCache {
  private readonly maxBytes: number;
  private readonly entries = new Map<string, Uint8Array>();
  private readonly byInode = new Map<number, Set<number>>();
  private bytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(ino: number, idx: number): Uint8Array | undefined {
    const key = `${ino}:${idx}`;
    const data = this.entries.get(key);
    if (data) {
      // Re-insert: Map iteration order is insertion order, so the first key is the least recently used.
      this.entries.delete(key);
      this.entries.set(key, data);
    }
    return data;
  }

  set(ino: number, idx: number, data: Uint8Array): void {
    if (data.length > this.maxBytes) return;
    const key = `${ino}:${idx}`;
    const old = this.entries.get(key);
    if (old) this.bytes -= old.length;
    this.entries.delete(key);
    this.entries.set(key, data);
    this.bytes += data.length;
    let set = this.byInode.get(ino);
    if (!set) {
      set = new Set();
      this.byInode.set(ino, set);
    }
    set.add(idx);
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
      const [i, x] = k.split(":");
      this.byInode.get(Number(i))?.delete(Number(x));
    }
  }

  /** Forgets every chunk of an inode. */
  dropInode(ino: number): void {
    const set = this.byInode.get(ino);
    if (!set) return;
    for (const idx of set) {
      const key = `${ino}:${idx}`;
      const data = this.entries.get(key);
      if (data) this.bytes -= data.length;
      this.entries.delete(key);
    }
    this.byInode.delete(ino);
  }

  clear(): void {
    this.entries.clear();
    this.byInode.clear();
    this.bytes = 0;
  }
}
