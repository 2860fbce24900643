/** Unit tests of Range header parsing. */
import { describe, expect, it } from "vitest";
import { parseRange, type RangeRequest } from "./range.ts";

describe("parseRange", () => {
  it.each<[string | null, number, RangeRequest]>([
    [null, 10, { kind: "none" }],
    ["bytes=0-0", 10, { kind: "range", start: 0, end: 0 }],
    ["bytes=2-5", 10, { kind: "range", start: 2, end: 5 }],
    ["bytes=2-", 10, { kind: "range", start: 2, end: 9 }],
    ["bytes=2-100", 10, { kind: "range", start: 2, end: 9 }],
    ["bytes=-4", 10, { kind: "range", start: 6, end: 9 }],
    ["bytes=-40", 10, { kind: "range", start: 0, end: 9 }],
    [" bytes = 1 - 2 ", 10, { kind: "range", start: 1, end: 2 }],
    ["bytes=10-", 10, { kind: "unsatisfiable" }],
    ["bytes=11-12", 10, { kind: "unsatisfiable" }],
    ["bytes=-0", 10, { kind: "unsatisfiable" }],
    ["bytes=0-", 0, { kind: "unsatisfiable" }],
    ["bytes=-5", 0, { kind: "unsatisfiable" }],
    ["bytes=5-2", 10, { kind: "none" }],
    ["bytes=-", 10, { kind: "none" }],
    ["bytes=a-b", 10, { kind: "none" }],
    ["bytes=0-1,3-4", 10, { kind: "none" }],
    ["chars=0-1", 10, { kind: "none" }],
    ["bytes=99999999999999999999-", 10, { kind: "none" }],
  ])("%j of %i bytes", (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});
