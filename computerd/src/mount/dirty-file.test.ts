import { CHUNK_SIZE } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { DirtyFile, type FlushTarget } from "./dirty-file.ts";

const T0 = { sec: 1, nsec: 0 };

/** A stored file as a plain byte array, with the FlushTarget operations applied to it. */
class Store implements FlushTarget {
  data: Uint8Array;
  ops: string[] = [];
  constructor(data: Uint8Array) {
    this.data = data;
  }
  read = (offset: number, length: number): Uint8Array => {
    expect(offset + length).toBeLessThanOrEqual(this.data.length);
    return this.data.slice(offset, offset + length);
  };
  resize(length: number): void {
    const next = new Uint8Array(length);
    next.set(this.data.subarray(0, Math.min(length, this.data.length)));
    this.data = next;
  }
  writeFile(_path: string, data: Uint8Array): void {
    this.ops.push(`writeFile ${data.length}`);
    this.data = data.slice();
  }
  pwrite(_path: string, offset: number, data: Uint8Array): void {
    this.ops.push(`pwrite ${offset} ${data.length}`);
    if (offset + data.length > this.data.length) this.resize(offset + data.length);
    this.data.set(data, offset);
  }
  truncate(_path: string, length: number): void {
    this.ops.push(`truncate ${length}`);
    this.resize(length);
  }
}

function readAll(file: DirtyFile, store: Store): Uint8Array {
  const out = new Uint8Array(file.size);
  expect(file.readInto(out, 0, file.size + 10, store.read)).toBe(file.size);
  return out;
}

function bytes(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

describe("DirtyFile", () => {
  it("flushes a small new file as one pwrite", () => {
    const store = new Store(new Uint8Array(0));
    const file = new DirtyFile(2, "/f", 0, T0);
    file.write(0, bytes(3, 7), T0);
    file.write(3, bytes(2, 8), T0);
    expect(readAll(file, store)).toEqual(new Uint8Array([7, 7, 7, 8, 8]));
    file.flush(store, store.read);
    expect(store.ops).toEqual(["pwrite 0 5"]);
    expect(store.data).toEqual(new Uint8Array([7, 7, 7, 8, 8]));
    expect(file.dirty).toBe(false);
  });

  it("replaces a truncated small file with one writeFile", () => {
    const store = new Store(bytes(100, 1));
    const file = new DirtyFile(2, "/f", 100, T0);
    file.truncate(0, T0);
    file.write(0, bytes(4, 9), T0);
    file.flush(store, store.read);
    expect(store.ops).toEqual(["writeFile 4"]);
    expect(store.data).toEqual(bytes(4, 9));
  });

  it("stores the times of a truncate to the same size (one truncate), and nothing once stored", () => {
    const store = new Store(bytes(100, 1));
    const file = new DirtyFile(2, "/f", 100, T0);
    expect(file.dirty).toBe(false);
    file.truncate(100, { sec: 2, nsec: 0 });
    expect(file.dirty).toBe(true);
    file.flush(store, store.read);
    expect(store.ops).toEqual(["truncate 100"]);
    expect(file.dirty).toBe(false);
    file.flush(store, store.read);
    expect(store.ops).toEqual(["truncate 100"]);
  });

  it("overwrites whole chunks without reading them, and reads partial ones in", () => {
    const store = new Store(bytes(3 * CHUNK_SIZE, 1));
    let reads = 0;
    const reader = (o: number, l: number) => {
      reads++;
      return store.read(o, l);
    };
    const file = new DirtyFile(2, "/f", store.data.length, T0);
    for (let off = 0; off < CHUNK_SIZE; off += 131072) file.write(off, bytes(131072, 2), T0);
    file.write(CHUNK_SIZE + 10, bytes(5, 3), T0);
    file.flush(store, reader);
    expect(reads).toBe(1);
    expect(store.ops).toEqual([`pwrite 0 ${CHUNK_SIZE}`, `pwrite ${CHUNK_SIZE} ${CHUNK_SIZE}`]);
    expect(store.data[0]).toBe(2);
    expect(store.data[CHUNK_SIZE + 9]).toBe(1);
    expect(store.data[CHUNK_SIZE + 10]).toBe(3);
    expect(store.data[2 * CHUNK_SIZE]).toBe(1);
  });

  it("keeps holes as zeros and extends with a final truncate", () => {
    const store = new Store(new Uint8Array(0));
    const file = new DirtyFile(2, "/f", 0, T0);
    file.write(2 * CHUNK_SIZE + 1, bytes(1, 5), T0);
    file.truncate(4 * CHUNK_SIZE, T0);
    const all = readAll(file, store);
    expect(all[2 * CHUNK_SIZE + 1]).toBe(5);
    expect(all.reduce((a, b) => a + b, 0)).toBe(5);
    file.flush(store, store.read);
    expect(store.ops).toEqual([`pwrite ${2 * CHUNK_SIZE} 2`, `truncate ${4 * CHUNK_SIZE}`]);
    expect(store.data.length).toBe(4 * CHUNK_SIZE);
  });

  it("matches a byte-array model under random writes, truncates, reads and flushes", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const span = 3 * CHUNK_SIZE;
    for (let round = 0; round < 30; round++) {
      const initial = new Uint8Array(rand(span));
      for (let i = 0; i < initial.length; i += 4099) initial[i] = (i % 250) + 1;
      const store = new Store(initial.slice());
      let model = initial.slice();
      const file = new DirtyFile(2, "/f", initial.length, T0);
      for (let step = 0; step < 25; step++) {
        const op = rand(10);
        if (op < 5) {
          const offset = rand(span);
          const length = rand(4) === 0 ? rand(CHUNK_SIZE + 5) : rand(300);
          const data = bytes(length, (step % 200) + 20);
          file.write(offset, data, T0);
          if (offset + length > model.length) {
            const next = new Uint8Array(offset + length);
            next.set(model);
            model = next;
          }
          model.set(data, offset);
        } else if (op < 7) {
          const length = rand(span);
          file.truncate(length, T0);
          const next = new Uint8Array(length);
          next.set(model.subarray(0, Math.min(length, model.length)));
          model = next;
        } else if (op < 9) {
          const offset = rand(span);
          const length = rand(CHUNK_SIZE * 2);
          const out = new Uint8Array(length).fill(0xee);
          const n = file.readInto(out, offset, length, store.read);
          const expected = model.subarray(
            Math.min(offset, model.length),
            Math.min(model.length, offset + length),
          );
          expect(n).toBe(expected.length);
          expect(Buffer.from(out.subarray(0, n)).equals(Buffer.from(expected))).toBe(true);
        } else {
          file.flush(store, store.read);
          expect(Buffer.from(store.data).equals(Buffer.from(model))).toBe(true);
        }
        expect(file.size).toBe(model.length);
      }
      file.flush(store, store.read);
      expect(Buffer.from(store.data).equals(Buffer.from(model))).toBe(true);
    }
  });
});

describe("DirtyFile growth (what a flush adds to the stored allocation)", () => {
  it("counts bytes past the stored content per chunk, not holes or overwrites", () => {
    const file = new DirtyFile(1, "/f", 100, T0);
    expect(file.growthOfWrite(0, 100)).toBe(0);
    expect(file.growthOfWrite(50, 100)).toBe(50);
    file.write(50, new Uint8Array(100), T0);
    expect(file.growth).toBe(50);
    // Far past the end: only the chunk the byte lands in grows, by its offset in that chunk + 1.
    expect(file.growthOfWrite(3 * CHUNK_SIZE + 9, 1)).toBe(10);
    file.write(3 * CHUNK_SIZE + 9, new Uint8Array(1), T0);
    expect(file.growth).toBe(60);
    file.truncate(120, T0);
    expect(file.growth).toBe(20);
  });

  it("is zero after the pages are stored", () => {
    const store = new Store(new Uint8Array(10));
    const file = new DirtyFile(1, "/f", 10, T0);
    file.write(0, new Uint8Array(CHUNK_SIZE + 5).fill(1), T0);
    expect(file.growth).toBe(CHUNK_SIZE + 5 - 10);
    expect(file.flushPage(0, store)).toBeDefined();
    expect(file.growth).toBe(5);
    file.flush(store, store.read);
    expect(file.growth).toBe(0);
  });
});

describe("DirtyFile: handed-over writes", () => {
  it("keeps a buffer covering a whole page as the page, and copies everything else", () => {
    const store = new Store(bytes(2 * CHUNK_SIZE, 1));
    const file = new DirtyFile(1, "/f", 2 * CHUNK_SIZE, T0);
    // One chunk and a bit, at a chunk boundary: page 0 is the buffer itself, page 1 a copy.
    const given = bytes(CHUNK_SIZE + 10, 2);
    expect(file.write(0, given, T0, true)).toEqual([0]);
    given[5] = 9;
    given[CHUNK_SIZE + 5] = 9;
    const all = readAll(file, store);
    expect(all[5]).toBe(9);
    expect(all[CHUNK_SIZE + 5]).toBe(2);
    expect(all[CHUNK_SIZE + 10]).toBe(1);
    // Not handed over: always copied.
    const copied = bytes(CHUNK_SIZE, 3);
    file.write(CHUNK_SIZE, copied, T0);
    copied[0] = 9;
    expect(readAll(file, store)[CHUNK_SIZE]).toBe(3);
    expect(file.bytes).toBe(2 * CHUNK_SIZE);
  });

  it("replaces a partly written page whole, and later writes go into the kept buffer", () => {
    const store = new Store(bytes(CHUNK_SIZE, 1));
    const file = new DirtyFile(1, "/f", CHUNK_SIZE, T0);
    file.write(100, bytes(10, 5), T0);
    file.write(0, bytes(CHUNK_SIZE, 2), T0, true);
    file.write(100, bytes(1, 7), T0);
    expect(file.bytes).toBe(CHUNK_SIZE);
    expect(file.flushPage(0, store)).toBeDefined();
    const expected = bytes(CHUNK_SIZE, 2);
    expected[100] = 7;
    expect(store.data).toEqual(expected);
  });
});
