/** Device numbers decode as glibc's major()/minor() do, also past 32 bits. */
import { describe, expect, it } from "vitest";
import { rdevMajor, rdevMinor } from "./stat-json.ts";

// glibc's makedev(), computed with BigInt so the test does not share the code under test.
function makedev(major: number, minor: number): number {
  const M = BigInt(major);
  const m = BigInt(minor);
  const dev = ((M & 0xfffn) << 8n) | ((M & ~0xfffn) << 32n) | (m & 0xffn) | ((m & ~0xffn) << 12n);
  return Number(dev);
}

describe("rdev", () => {
  it.each([
    [0, 0],
    [1, 3], // /dev/null
    [8, 1], // /dev/sda1
    [4095, 255],
    [4096, 256],
    [0x12345, 0xabcde],
    [0x7ffff, 0xfffff],
  ])("major %i minor %i round-trips through dev_t", (major, minor) => {
    const rdev = makedev(major, minor);
    expect([rdevMajor(rdev), rdevMinor(rdev)]).toEqual([major, minor]);
  });
});
