import { describe, expect, it } from "vitest";
import { DirectWrites, kernelKeepsDirectWritesCoherent, STORE_FROM } from "./direct-writes.ts";

const O_RDWR = 0o2;
const O_WRONLY = 0o1;
const O_TRUNC = 0o1000;

function recorder() {
  const stores: { ino: number; offset: number; lengths: number[] }[] = [];
  let finish: () => void = () => {};
  const directs = new DirectWrites(true, (ino, offset, chunks) => {
    stores.push({ ino, offset, lengths: chunks.map((chunk) => chunk.length) });
    return new Promise<void>((resolve) => {
      finish = resolve;
    });
  });
  return { directs, stores, finish: () => finish() };
}

describe("DirectWrites", () => {
  it("bypasses the page cache only for write-only handles of new or truncated files", () => {
    const { directs } = recorder();
    expect(directs.opened(5, 1, O_WRONLY, true)).toBe(true);
    expect(directs.opened(5, 2, O_WRONLY | O_TRUNC)).toBe(true);
    expect(directs.opened(5, 3, O_WRONLY)).toBe(false);
    expect(directs.opened(5, 4, O_RDWR | O_TRUNC, true)).toBe(false);
    expect(directs.opened(5, 6, 0)).toBe(false);
    expect(new DirectWrites(false, async () => {}).opened(5, 1, O_WRONLY, true)).toBe(false);
  });

  it("stores the file but its first page after a direct handle's release, and says so until done", async () => {
    const { directs, stores, finish } = recorder();
    directs.opened(7, 1, O_WRONLY, true);
    directs.released(1, false, () => [new Uint8Array(1 << 20), new Uint8Array(10)]);
    expect(stores).toEqual([{ ino: 7, offset: STORE_FROM, lengths: [(1 << 20) - STORE_FROM, 10] }]);
    const storing = directs.storeOf(7);
    expect(storing).toBeDefined();
    finish();
    await storing;
    await directs.stored();
    expect(directs.storeOf(7)).toBeUndefined();
  });

  it("stores nothing while another handle may write, for a file of one page, or one memory lacks", () => {
    const { directs, stores } = recorder();
    directs.opened(7, 1, O_WRONLY, true);
    directs.released(1, true, () => [new Uint8Array(1 << 20)]);
    directs.opened(8, 2, O_WRONLY, true);
    directs.released(2, false, () => [new Uint8Array(STORE_FROM)]);
    directs.opened(9, 3, O_WRONLY, true);
    directs.released(3, false, () => undefined);
    directs.released(4, false, () => [new Uint8Array(1 << 20)]); // not a direct handle
    expect(stores).toEqual([]);
  });

  it("knows the kernels that drop their pages of a direct write's range (Linux 6.6 on)", () => {
    expect(kernelKeepsDirectWritesCoherent("6.18.44-fc-v1045")).toBe(true);
    expect(kernelKeepsDirectWritesCoherent("6.6.0")).toBe(true);
    expect(kernelKeepsDirectWritesCoherent("6.5.13-generic")).toBe(false);
    expect(kernelKeepsDirectWritesCoherent("5.15.0-91-generic")).toBe(false);
    expect(kernelKeepsDirectWritesCoherent("7.0")).toBe(true);
  });
});
