/** SettledRev: the revision a background upload may send up to, `settleMs` behind the writes. */
import { describe, expect, test } from "vitest";
import { SettledRev } from "./settled-rev.ts";

describe("SettledRev", () => {
  test("answers the latest revision sampled at least settleMs ago, none before", () => {
    const settled = new SettledRev(100);
    expect(settled.sample(0, 5)).toBeUndefined();
    expect(settled.sample(50, 9)).toBeUndefined();
    expect(settled.sample(100, 12)).toBe(5);
    expect(settled.sample(160, 20)).toBe(9);
    expect(settled.sample(400, 20)).toBe(20);
    expect(settled.sample(401, 30)).toBe(20);
  });

  test("writes that never settle (a path rewritten every 50 ms) are answered once they wait maxLagMs", () => {
    const settled = new SettledRev(500, 1000);
    const answers: (number | undefined)[] = [];
    // An upload every 150 ms; the revision moves by one every 50 ms, so it moves at every sample.
    for (let at = 0; at <= 3000; at += 150) answers.push(settled.sample(at, 1 + at / 50));
    // Settled answers lag 500 ms behind; at 1050 ms (the first sample 1 s after the writes
    // started waiting) the answer is the current revision, and every later one at least that.
    expect(answers.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    expect(answers[4]).toBe(1);
    expect(answers[7]).toBe(1 + 1050 / 50);
    for (let i = 8; i < answers.length; i++) expect(answers[i]).toBeGreaterThanOrEqual(1 + 1050 / 50);
    // …and again at least every maxLagMs (plus one upload interval) after that.
    expect(answers[15]).toBe(1 + 2250 / 50);
  });

  test("the lag counts from the first sample that saw unsent writes, not from an idle stretch", () => {
    const settled = new SettledRev(100, 1000);
    expect(settled.sample(0, 5)).toBeUndefined();
    expect(settled.sample(200, 5)).toBe(5);
    // Nothing written for 10 s, then a burst: it settles as usual, no forced answer.
    expect(settled.sample(10_000, 9)).toBe(5);
    expect(settled.sample(10_050, 12)).toBe(5);
    expect(settled.sample(10_150, 12)).toBe(12);
  });
});
