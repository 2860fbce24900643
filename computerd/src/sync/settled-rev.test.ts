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
});
