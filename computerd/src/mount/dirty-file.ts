/**
 * The unflushed content of one file: chunk-aligned pages (CHUNK_SIZE, like the
 * vfs chunks) holding the bytes written since the last flush, the logical size,
 * and how much of the stored content is still current. Flushing turns the pages
 * into whole-chunk vfs writes, so the vfs never re-reads or re-hashes a chunk
 * to merge a small write.
 */
import { CHUNK_SIZE, type Timespec } from "@computer/vfs";
import { addRange, covers, cutRanges, forEachGap } from "./extents.ts";

/** Reads stored bytes [offset, offset + length) of the file (the range is inside the stored size). */
export type StoredReader = (offset: number, length: number) => Uint8Array;

/**
 * The vfs operations a flush needs, on the file's current path. `mtime` is the time of the
 * last write they store (what stat showed while the data was buffered), recorded as the
 * file's mtime and ctime instead of the flush's own time.
 */
export interface FlushTarget {
  writeFile(path: string, data: Uint8Array, mtime: Timespec): void;
  /** `hash`: the sha-256 of `data` when it was computed ahead (a whole page). */
  pwrite(path: string, offset: number, data: Uint8Array, mtime: Timespec, hash?: string): void;
  truncate(path: string, length: number, mtime: Timespec): void;
}

interface Page {
  /** Grows (doubling) up to CHUNK_SIZE; bytes never written nor read in are zero. */
  buf: Uint8Array;
  /** Written byte ranges, relative to the page start. */
  written: number[];
  /** Every byte of the page is known (read in from the store, or past the stored content). */
  complete: boolean;
  /**
   * `buf` is also another file's page or a cached chunk (copy_file_range shared it): it is
   * copied before anything changes it.
   */
  shared?: boolean;
  /** sha-256 of the whole page, computed ahead (hashPage) and still true: nothing changed since. */
  hash?: string;
  /** The hashing in progress; any change clears it, so its result is dropped. */
  hashing?: Promise<void>;
}

/** sha-256 (hex) of bytes, computed off the JS thread; it reads `bytes` before returning. */
export type Digest = (bytes: Uint8Array) => Promise<string>;

/** sha-256 on the thread pool (WebCrypto copies the bytes before returning). */
export const threadPoolDigest: Digest = async (bytes) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)).toString("hex");

const MIN_PAGE = 256;
/** Past this, a page is allocated whole: big writes are sequential and would grow it anyway. */
const WHOLE_PAGE_FROM = 64 << 10;

function capacityFor(need: number): number {
  if (need <= MIN_PAGE) return MIN_PAGE;
  if (need > WHOLE_PAGE_FROM) return CHUNK_SIZE;
  let cap = MIN_PAGE;
  while (cap < need) cap *= 2;
  return Math.min(cap, CHUNK_SIZE);
}

/** Dirty state of one inode. Not thread-safe by design: FUSE callbacks run on one JS thread. */
export class DirtyFile {
  readonly ino: number;
  /** The path the next flush writes to (kept current across renames). */
  path: string;
  /** Logical size, what stat reports. */
  size: number;
  /** Bytes [0, baseSize) of the stored content are still the file's content where no page overrides them. */
  baseSize: number;
  /** Size of the stored file right now. */
  storedSize: number;
  mtime: Timespec;
  /** A truncate set the times (to the same size, it changes nothing else the flush would store). */
  private timed = false;
  /** Memory held by pages. */
  bytes = 0;
  /**
   * Bytes the flush is expected to add to the stored allocation: per page, how far its written
   * bytes reach past the stored content of that chunk. Filling a hole inside the stored size is
   * not counted (rare; the flush's own quota check still refuses it).
   */
  growth = 0;
  private readonly pages = new Map<number, Page>();

  constructor(ino: number, path: string, storedSize: number, now: Timespec) {
    this.ino = ino;
    this.path = path;
    this.size = storedSize;
    this.baseSize = storedSize;
    this.storedSize = storedSize;
    this.mtime = now;
  }

  /** True when there is anything to flush. */
  get dirty(): boolean {
    return (
      this.pages.size > 0 || this.size !== this.storedSize || this.baseSize !== this.storedSize || this.timed
    );
  }

  private page(idx: number, need: number): Page {
    let page = this.pages.get(idx);
    if (!page) {
      page = {
        buf: new Uint8Array(capacityFor(need)),
        written: [],
        complete: idx * CHUNK_SIZE >= this.baseSize,
      };
      this.pages.set(idx, page);
      this.bytes += page.buf.length;
    } else if (page.buf.length < need || page.shared) {
      const buf = new Uint8Array(Math.max(need, capacityFor(need), page.buf.length));
      buf.set(page.buf);
      this.bytes += buf.length - page.buf.length;
      page.buf = buf;
      page.shared = false;
    }
    DirtyFile.changing(page);
    return page;
  }

  /** A page is about to change: a hash known or on its way no longer holds. */
  private static changing(page: Page): void {
    page.hash = undefined;
    page.hashing = undefined;
  }

  /**
   * Starts hashing page `idx` on the thread pool when it is whole (every byte written) and its
   * hash is neither known nor on its way; the result is kept only if the page did not change
   * meanwhile. Returns the hashing in progress, or undefined when there is nothing to do.
   */
  hashPage(idx: number, digest: Digest): Promise<void> | undefined {
    const page = this.pages.get(idx);
    if (!page || page.hash !== undefined || page.buf.length < CHUNK_SIZE) return undefined;
    if (page.hashing) return page.hashing;
    if (!covers(page.written, 0, CHUNK_SIZE)) return undefined;
    const hashing: Promise<void> = digest(page.buf.subarray(0, CHUNK_SIZE)).then(
      (hash) => {
        if (page.hashing === hashing) [page.hash, page.hashing] = [hash, undefined];
      },
      () => {
        if (page.hashing === hashing) page.hashing = undefined;
      },
    );
    page.hashing = hashing;
    return hashing;
  }

  /** Starts hashing every whole page (hashPage); returns the hashings in progress. */
  hashPages(digest: Digest): Promise<void>[] {
    return [...this.pages.keys()].flatMap((idx) => this.hashPage(idx, digest) ?? []);
  }

  /** The known hash of `data` when it is exactly page `page`'s whole buffer. */
  private static hashOf(page: Page | undefined, data: Uint8Array): string | undefined {
    if (!page?.hash || data.length !== CHUNK_SIZE) return undefined;
    return data.buffer === page.buf.buffer && data.byteOffset === page.buf.byteOffset ? page.hash : undefined;
  }

  /** Gives a shared page a buffer of its own before it changes. */
  private static own(page: Page): void {
    if (!page.shared) return;
    page.buf = page.buf.slice();
    page.shared = false;
  }

  /** Makes `buf` (CHUNK_SIZE bytes, all written) page `idx`, replacing what the page held. */
  private adopt(idx: number, buf: Uint8Array): void {
    const old = this.pages.get(idx);
    if (old) this.bytes -= old.buf.length;
    this.pages.set(idx, { buf, written: [0, CHUNK_SIZE], complete: true });
    this.bytes += CHUNK_SIZE;
  }

  /** Bytes of chunk `idx` the store holds now (a hole counts as stored up to the stored size). */
  private storedExtent(idx: number): number {
    return Math.min(CHUNK_SIZE, Math.max(0, this.storedSize - idx * CHUNK_SIZE));
  }

  /** What a page adds to the stored allocation when flushed, by its extent (last written byte). */
  private pageGrowth(idx: number, extent: number): number {
    return Math.max(0, extent - this.storedExtent(idx));
  }

  private static extentOf(page: Page | undefined): number {
    return page && page.written.length > 0 ? (page.written[page.written.length - 1] as number) : 0;
  }

  /** How much `growth` would rise if `length` bytes were written at `offset` (nothing changes). */
  growthOfWrite(offset: number, length: number): number {
    const end = offset + length;
    let extra = 0;
    let pos = offset;
    while (pos < end) {
      const idx = Math.floor(pos / CHUNK_SIZE);
      const pageStart = idx * CHUNK_SIZE;
      const to = Math.min(CHUNK_SIZE, end - pageStart);
      const extent = DirtyFile.extentOf(this.pages.get(idx));
      extra += this.pageGrowth(idx, Math.max(extent, to)) - this.pageGrowth(idx, extent);
      pos = pageStart + to;
    }
    return extra;
  }

  /** Recomputes `growth` after pages went or the stored size moved. */
  private recount(): void {
    let growth = 0;
    for (const [idx, page] of this.pages) growth += this.pageGrowth(idx, DirtyFile.extentOf(page));
    this.growth = growth;
  }

  /**
   * Copies `data` in at `offset`. Returns the pages this write completed (every byte written).
   * With `handedOver` the caller never touches `data` again: a page it covers whole becomes a
   * view of it instead of a copy (a 1 MiB FUSE write's receive buffer is the page).
   */
  write(offset: number, data: Uint8Array, now: Timespec, handedOver = false): number[] {
    const end = offset + data.length;
    const full: number[] = [];
    this.growth += this.growthOfWrite(offset, data.length);
    let pos = offset;
    while (pos < end) {
      const idx = Math.floor(pos / CHUNK_SIZE);
      const pageStart = idx * CHUNK_SIZE;
      const from = pos - pageStart;
      const to = Math.min(CHUNK_SIZE, end - pageStart);
      if (handedOver && from === 0 && to === CHUNK_SIZE) {
        this.adopt(idx, data.subarray(pos - offset, pos - offset + CHUNK_SIZE));
        full.push(idx);
        pos = pageStart + to;
        continue;
      }
      const page = this.page(idx, to);
      page.buf.set(data.subarray(pos - offset, pos - offset + (to - from)), from);
      addRange(page.written, from, to);
      if (to === CHUNK_SIZE && covers(page.written, 0, CHUNK_SIZE)) full.push(idx);
      pos = pageStart + to;
    }
    if (end > this.size) this.size = end;
    this.mtime = now;
    return full;
  }

  /**
   * Writes one fully written page to the vfs ahead of the rest (streaming writes
   * get hashed and stored while more data arrives). Only when no truncation is
   * pending; returns the stored bytes, or undefined when the page does not qualify.
   */
  flushPage(idx: number, target: FlushTarget): Uint8Array | undefined {
    const page = this.pages.get(idx);
    if (!page || this.storedSize !== this.baseSize || !covers(page.written, 0, CHUNK_SIZE)) return undefined;
    const pageStart = idx * CHUNK_SIZE;
    if (this.size < pageStart + CHUNK_SIZE) return undefined;
    const data = page.buf.subarray(0, CHUNK_SIZE);
    target.pwrite(this.path, pageStart, data, this.mtime, DirtyFile.hashOf(page, data));
    this.pages.delete(idx);
    this.bytes -= page.buf.length;
    // Bytes between the old stored end and this page are holes in the vfs and zeros here alike.
    this.storedSize = Math.max(this.storedSize, pageStart + CHUNK_SIZE);
    this.baseSize = this.storedSize;
    this.recount();
    return data;
  }

  /**
   * The current bytes of chunk `idx` (up to the end of the file) when memory holds all of
   * them: a page that needs nothing from the store (its buffer, not a copy), or `cached(idx)`
   * for a chunk without a page inside the still-current stored content. Changes nothing.
   */
  contentOf(idx: number, cached: (idx: number) => Uint8Array | undefined): Uint8Array | undefined {
    const pageStart = idx * CHUNK_SIZE;
    const valid = Math.min(CHUNK_SIZE, this.size - pageStart);
    if (valid <= 0) return undefined;
    const page = this.pages.get(idx);
    if (page) {
      const known = page.complete || covers(page.written, 0, Math.min(valid, this.baseSize - pageStart));
      return known && page.buf.length >= valid ? page.buf.subarray(0, valid) : undefined;
    }
    if (pageStart + valid > this.baseSize) return undefined;
    const data = cached(idx);
    return data && data.length >= valid ? data.subarray(0, valid) : undefined;
  }

  /**
   * The current bytes of the `length` bytes at chunk-aligned `offset`, chunk by chunk
   * (contentOf), or undefined unless memory holds all of them. Changes nothing.
   */
  rangeContent(
    offset: number,
    length: number,
    cached: (idx: number) => Uint8Array | undefined,
  ): Uint8Array[] | undefined {
    const chunks: Uint8Array[] = [];
    for (let done = 0; done < length; done += CHUNK_SIZE) {
      const data = this.contentOf((offset + done) / CHUNK_SIZE, cached);
      if (!data) return undefined;
      chunks.push(data.subarray(0, Math.min(CHUNK_SIZE, length - done)));
    }
    return chunks;
  }

  /** The pages of [offset, offset + length) lend their buffers to a copy: each is copied before it next changes. */
  share(offset: number, length: number): void {
    for (let idx = offset / CHUNK_SIZE; idx * CHUNK_SIZE < offset + length; idx++) {
      const page = this.pages.get(idx);
      if (page) page.shared = true;
    }
  }

  /**
   * The in-memory half of copy_file_range: `chunks` (whole chunks but maybe the last, which
   * must then end the file) become the pages from the chunk-aligned `offset` on, shared with
   * whoever lent them. Returns the pages it completed.
   */
  putShared(offset: number, chunks: Uint8Array[], now: Timespec): number[] {
    const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    this.growth += this.growthOfWrite(offset, length);
    const first = offset / CHUNK_SIZE;
    const full: number[] = [];
    chunks.forEach((buf, k) => {
      const old = this.pages.get(first + k);
      if (old) this.bytes -= old.buf.length;
      this.pages.set(first + k, { buf, written: [0, buf.length], complete: true, shared: true });
      this.bytes += buf.length;
      if (buf.length === CHUNK_SIZE) full.push(first + k);
    });
    if (offset + length > this.size) this.size = offset + length;
    this.mtime = now;
    return full;
  }

  /** Sets the size; shrinking drops pages and forgets stored bytes past the new end. */
  truncate(length: number, now: Timespec): void {
    if (length < this.size) {
      const keep = Math.ceil(length / CHUNK_SIZE);
      for (const [idx, page] of this.pages) {
        if (idx >= keep) {
          this.bytes -= page.buf.length;
          this.pages.delete(idx);
        }
      }
      const lastIdx = keep - 1;
      const last = lastIdx >= 0 ? this.pages.get(lastIdx) : undefined;
      if (last) {
        const cut = length - lastIdx * CHUNK_SIZE;
        DirtyFile.own(last);
        DirtyFile.changing(last);
        if (cut < last.buf.length) last.buf.fill(0, cut);
        cutRanges(last.written, cut);
      }
      this.baseSize = Math.min(this.baseSize, length);
      this.recount();
    }
    this.size = length;
    this.mtime = now;
    this.timed = true;
  }

  /** Fills a page's unwritten bytes from the stored content. */
  private readIn(idx: number, page: Page, readStored: StoredReader): void {
    const pageStart = idx * CHUNK_SIZE;
    const storedLen = Math.min(CHUNK_SIZE, this.baseSize - pageStart);
    if (storedLen > 0) {
      DirtyFile.own(page);
      DirtyFile.changing(page);
      const stored = readStored(pageStart, storedLen);
      if (page.buf.length < storedLen) {
        const buf = new Uint8Array(capacityFor(storedLen));
        buf.set(page.buf);
        this.bytes += buf.length - page.buf.length;
        page.buf = buf;
      }
      forEachGap(page.written, 0, storedLen, (from, to) => page.buf.set(stored.subarray(from, to), from));
    }
    page.complete = true;
  }

  /** Reads up to `length` bytes at `offset` into `target`; returns the count (0 at or past the end). */
  readInto(target: Uint8Array, offset: number, length: number, readStored: StoredReader): number {
    const end = Math.min(this.size, offset + length);
    if (end <= offset) return 0;
    let pos = offset;
    while (pos < end) {
      const idx = Math.floor(pos / CHUNK_SIZE);
      const pageStart = idx * CHUNK_SIZE;
      const from = pos - pageStart;
      const to = Math.min(CHUNK_SIZE, end - pageStart);
      const at = pos - offset;
      const page = this.pages.get(idx);
      if (page) {
        if (!page.complete && !covers(page.written, from, Math.min(to, this.baseSize - pageStart))) {
          this.readIn(idx, page, readStored);
        }
        const have = Math.min(to, page.buf.length);
        if (have > from) target.set(page.buf.subarray(from, have), at);
        if (to > Math.max(from, have)) target.fill(0, at + Math.max(0, have - from), at + (to - from));
      } else {
        const storedEnd = Math.min(pageStart + to, this.baseSize);
        if (pos < storedEnd) target.set(readStored(pos, storedEnd - pos), at);
        const zeroFrom = Math.max(pos, storedEnd);
        if (zeroFrom < pageStart + to) target.fill(0, zeroFrom - offset, pageStart + to - offset);
      }
      pos = pageStart + to;
    }
    return end - offset;
  }

  /**
   * The bytes of a page up to its last written or stored byte (what follows is a
   * hole the final truncate restores), read in from the store where needed.
   */
  private pageBytes(idx: number, page: Page, readStored: StoredReader): Uint8Array | undefined {
    const pageStart = idx * CHUNK_SIZE;
    const lastWritten = page.written.length > 0 ? (page.written[page.written.length - 1] as number) : 0;
    const stored = Math.max(0, this.baseSize - pageStart);
    const valid = Math.min(CHUNK_SIZE, this.size - pageStart, Math.max(lastWritten, stored));
    if (valid <= 0) return undefined;
    if (!page.complete && !covers(page.written, 0, Math.min(valid, this.baseSize - pageStart))) {
      this.readIn(idx, page, readStored);
    }
    if (valid <= page.buf.length) return page.buf.subarray(0, valid);
    const out = new Uint8Array(valid);
    out.set(page.buf);
    return out;
  }

  /** All the bytes of a file that fits one chunk and keeps nothing of its stored content. */
  private onePage(readStored: StoredReader): Uint8Array {
    const page = this.pages.get(0);
    const data = (page && this.pageBytes(0, page, readStored)) ?? new Uint8Array(0);
    if (data.length >= this.size) return data;
    const whole = new Uint8Array(this.size);
    whole.set(data);
    return whole;
  }

  /**
   * The whole content of a file nothing is stored of yet, smaller than a chunk (a new small
   * file: what its store writes at once, with no page hashed ahead), or undefined. Changes nothing.
   */
  newContent(readStored: StoredReader): Uint8Array | undefined {
    if (!this.dirty || this.storedSize !== 0 || this.baseSize !== 0 || this.size >= CHUNK_SIZE)
      return undefined;
    return this.onePage(readStored);
  }

  /**
   * Writes everything to the vfs: a file that fits one chunk and replaces its
   * stored content is one pwrite (new file) or one writeFile, otherwise a truncate to the still-current
   * prefix, one whole-chunk pwrite per page and a final size fix-up. Returns
   * the bytes now stored for each written chunk (they can serve reads).
   */
  flush(target: FlushTarget, readStored: StoredReader): Map<number, Uint8Array> {
    const written = new Map<number, Uint8Array>();
    if (!this.dirty) return written;
    if (this.baseSize === 0 && this.size <= CHUNK_SIZE) {
      const data = this.onePage(readStored);
      // writeFile would create a missing file; pwrite fails instead, so prefer it when nothing is stored.
      if (this.storedSize === 0)
        target.pwrite(this.path, 0, data, this.mtime, DirtyFile.hashOf(this.pages.get(0), data));
      else target.writeFile(this.path, data, this.mtime);
      written.set(0, data);
    } else {
      const cut = this.storedSize > this.baseSize;
      if (cut) target.truncate(this.path, this.baseSize, this.mtime);
      let end = this.baseSize;
      for (const idx of [...this.pages.keys()].sort((a, b) => a - b)) {
        const page = this.pages.get(idx);
        const data = page && this.pageBytes(idx, page, readStored);
        if (!data) continue;
        target.pwrite(this.path, idx * CHUNK_SIZE, data, this.mtime, DirtyFile.hashOf(page, data));
        written.set(idx, data);
        end = Math.max(end, idx * CHUNK_SIZE + data.length);
      }
      // A truncate to the same size stores nothing else, but the times it set must be stored.
      const timesOnly = this.timed && !cut && written.size === 0;
      if (this.size !== end || timesOnly) target.truncate(this.path, this.size, this.mtime);
    }
    this.pages.clear();
    this.timed = false;
    this.bytes = 0;
    this.growth = 0;
    this.baseSize = this.size;
    this.storedSize = this.size;
    return written;
  }
}
