import { describe, expect, it } from "vitest";
import { addRange, covers, cutRanges, forEachGap } from "./extents.ts";

describe("extents", () => {
  it("merges overlapping and touching ranges and keeps them sorted", () => {
    const r: number[] = [];
    addRange(r, 10, 20);
    addRange(r, 30, 40);
    addRange(r, 0, 5);
    expect(r).toEqual([0, 5, 10, 20, 30, 40]);
    addRange(r, 5, 10);
    expect(r).toEqual([0, 20, 30, 40]);
    addRange(r, 15, 35);
    expect(r).toEqual([0, 40]);
    addRange(r, 40, 50);
    expect(r).toEqual([0, 50]);
    addRange(r, 60, 60);
    expect(r).toEqual([0, 50]);
  });

  it("answers coverage, cuts and gaps", () => {
    const r = [0, 10, 20, 30];
    expect(covers(r, 2, 8)).toBe(true);
    expect(covers(r, 5, 25)).toBe(false);
    expect(covers(r, 7, 7)).toBe(true);
    const gaps: [number, number][] = [];
    forEachGap(r, 0, 40, (a, b) => gaps.push([a, b]));
    expect(gaps).toEqual([
      [10, 20],
      [30, 40],
    ]);
    cutRanges(r, 25);
    expect(r).toEqual([0, 10, 20, 25]);
    cutRanges(r, 10);
    expect(r).toEqual([0, 10]);
  });

  it("agrees with a bitmap on random ranges", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const r: number[] = [];
      const bits = new Array<boolean>(100).fill(false);
      for (let i = 0; i < 8; i++) {
        const a = rand(100);
        const b = a + rand(100 - a);
        addRange(r, a, b);
        for (let x = a; x < b; x++) bits[x] = true;
      }
      for (let x = 0; x < 100; x++) expect(covers(r, x, x + 1)).toBe(bits[x]);
      for (let i = 2; i < r.length; i += 2) expect(r[i] as number).toBeGreaterThan(r[i - 1] as number);
    }
  });
});
