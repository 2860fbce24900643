/**
 * Lazy chunk fetch: the Durable Object sends large files to the mirror as placeholders (hash
 * and size, vfs/src/placeholders.ts), so a command that never reads them does not wait for
 * their bytes. The mount asks `wait` before it reads or partly rewrites a range of a file that
 * still has placeholders; the missing chunks come from the DO (`getBlobs`, checked against
 * their hash, stored and committed), and the read waits only for its own chunks while the next
 * ones are fetched ahead. A chunk that cannot be fetched (no link, the DO lacks it, a wrong
 * hash) is EIO for that read, never zeros or another version's bytes (chunks are addressed by
 * hash). Once a fetched chunk is committed, or the mirror's GC dropped a placeholder no file
 * uses, the DO is told it may let the blob go (`releaseBlobs`).
 */
import { CHUNK_SIZE, ChunkUnavailableError, type PlaceholderChunk } from "@computer/vfs";
import type { BlobData } from "@computer/vfs/sync";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { RemoteChunks } from "../mount/remote-chunks.ts";

/** What the fetcher calls on the Durable Object (its DoSyncApi stub). */
export interface BlobSource {
  getBlobs(hashes: string[]): Promise<BlobData[]>;
  releaseBlobs(hashes: string[], upTo: number): Promise<void>;
}

/** Tuning of the fetcher. */
export interface ChunkFetcherOptions {
  mirror: Mirror;
  /** The highest hold sequence of the DO's placeholders the mirror applied (releaseBlobs' bound). */
  heldSeq(): number;
  log(message: string, err?: unknown): void;
  /** Chunks fetched ahead of a read (default 8). */
  aheadChunks?: number;
  /** Chunks per getBlobs call (default 4). */
  groupChunks?: number;
}

/** What the fetcher did (the daemon's counters). */
export interface FetchCounters {
  calls: number;
  chunks: number;
  bytes: number;
  failures: number;
}

function eio(detail: string): ChunkUnavailableError {
  return new ChunkUnavailableError(undefined, detail);
}

/** Fetches the mirror's placeholder chunks from the Durable Object on demand. */
export class ChunkFetcher implements RemoteChunks {
  readonly #options: ChunkFetcherOptions;
  readonly #ahead: number;
  readonly #group: number;
  /** Inodes that may still have placeholders (checked before every read of them). */
  readonly #lazy = new Set<number>();
  /** Fetches in flight by hash. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Hashes to release at the DO (sent with the next call that can go). */
  #releases: string[] = [];
  #source: BlobSource | undefined;
  readonly counters: FetchCounters = { calls: 0, chunks: 0, bytes: 0, failures: 0 };

  constructor(options: ChunkFetcherOptions) {
    this.#options = options;
    this.#ahead = options.aheadChunks ?? 8;
    this.#group = options.groupChunks ?? 4;
    this.refresh();
  }

  /** The DO to fetch from (undefined: no link, fetches fail with EIO). */
  connect(source: BlobSource | undefined): void {
    this.#source = source;
    if (source) this.#flushReleases();
  }

  /** Re-reads which inodes have placeholders (after a push that carried some, and at start). */
  refresh(): void {
    this.#lazy.clear();
    for (const ino of this.#options.mirror.vfs.placeholderInodes()) this.#lazy.add(ino);
  }

  /** True while inode `ino` may have chunks that are not here. */
  isLazy(ino: number): boolean {
    return this.#lazy.has(ino);
  }

  addLazy(ino: number): void {
    this.#lazy.add(ino);
  }

  wait(ino: number, offset: number, length: number, ahead: boolean): Promise<void> | undefined {
    if (!this.#lazy.has(ino)) return undefined;
    const vfs = this.#options.mirror.vfs;
    const first = Math.floor(offset / CHUNK_SIZE);
    const last = Math.floor((offset + Math.max(length, 1) - 1) / CHUNK_SIZE);
    const pending = vfs.placeholderChunks(ino, first, last + (ahead ? this.#ahead : 0));
    if (pending.length === 0) {
      if (vfs.placeholderChunks(ino, 0, Number.MAX_SAFE_INTEGER).length === 0) this.#lazy.delete(ino);
      return undefined;
    }
    const needed = pending.filter((c) => c.idx <= last);
    this.#start(needed);
    this.#start(pending.filter((c) => c.idx > last));
    if (needed.length === 0) return undefined;
    // Once they are here, look again: a push may have pointed the file at other chunks meanwhile.
    return Promise.all(needed.map((c) => this.#inFlight.get(c.hash))).then(() =>
      this.wait(ino, offset, length, false),
    );
  }

  /** Placeholders the mirror's GC dropped (no file uses them): the DO may let them go. */
  dropped(hashes: readonly string[]): void {
    if (hashes.length === 0) return;
    this.#releases.push(...hashes);
    this.#flushReleases();
  }

  /** Starts fetching the chunks not in flight yet, a few per call. */
  #start(chunks: readonly PlaceholderChunk[]): void {
    const todo = chunks.filter((c) => !this.#inFlight.has(c.hash));
    for (let i = 0; i < todo.length; i += this.#group) {
      const group = [...new Set(todo.slice(i, i + this.#group).map((c) => c.hash))];
      const call = this.#fetch(group);
      for (const hash of group) {
        const mine = call.finally(() => {
          if (this.#inFlight.get(hash) === mine) this.#inFlight.delete(hash);
        });
        // Awaited by the reads that need it; a fetch ahead nobody waits for must not be unhandled.
        mine.catch(() => undefined);
        this.#inFlight.set(hash, mine);
      }
    }
  }

  /** One getBlobs call: every blob checked against its hash, stored, committed, then released. */
  async #fetch(hashes: string[]): Promise<void> {
    const source = this.#source;
    if (!source) {
      this.counters.failures++;
      throw eio("the chunk is not fetched yet and there is no link to the Durable Object");
    }
    const { mirror } = this.#options;
    let blobs: BlobData[];
    try {
      this.counters.calls++;
      blobs = await source.getBlobs(hashes);
    } catch (err) {
      this.counters.failures++;
      this.#options.log("fetching chunks from the Durable Object failed", err);
      throw eio("fetching the chunk from the Durable Object failed");
    }
    const got = new Set<string>();
    for (const blob of blobs) {
      if (!hashes.includes(blob.hash) || !(blob.data instanceof Uint8Array)) continue;
      // Stored only when it still is a placeholder here (a push may have replaced the file).
      if (!mirror.vfs.isPlaceholder(blob.hash)) {
        got.add(blob.hash);
        continue;
      }
      if (mirror.vfs.putBlob(blob.data) !== blob.hash) {
        this.counters.failures++;
        throw eio(`the Durable Object sent other bytes for chunk ${blob.hash}`);
      }
      got.add(blob.hash);
      this.counters.chunks++;
      this.counters.bytes += blob.data.length;
    }
    mirror.sql.commit();
    this.#releases.push(...got);
    this.#flushReleases();
    const lost = hashes.filter((h) => !got.has(h));
    if (lost.length > 0) {
      this.counters.failures++;
      throw eio(`the Durable Object no longer holds chunk ${lost[0]}`);
    }
  }

  /** Sends the pending releases (best effort: a failed call keeps them for the next one). */
  #flushReleases(): void {
    const source = this.#source;
    if (!source || this.#releases.length === 0) return;
    const hashes = this.#releases;
    this.#releases = [];
    source.releaseBlobs(hashes, this.#options.heldSeq()).catch((err: unknown) => {
      this.#releases.push(...hashes);
      this.#options.log("releasing fetched chunks at the Durable Object failed", err);
    });
  }
}
