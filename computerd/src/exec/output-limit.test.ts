/** The output cap's arithmetic: UTF-8 safe cuts, shared accounting, one marker. */
import { describe, expect, test } from "vitest";
import { OutputLimit, truncationMarker, utf8Boundary } from "./output-limit.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("utf8Boundary", () => {
  test("moves a cut back to the start of a character", () => {
    const euro = bytes("a€b"); // 61 e2 82 ac 62
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => utf8Boundary(euro, n))).toEqual([0, 1, 1, 1, 4, 5, 5]);
  });
});

describe("OutputLimit", () => {
  test("keeps up to the cap across both streams, then drops and counts", () => {
    const limit = new OutputLimit(5);
    expect(limit.take("stdout", bytes("abc"))).toEqual({ data: "abc", bytes: 3 });
    expect(limit.take("stderr", bytes("defg"))).toEqual({ data: "de", bytes: 2 });
    expect(limit.take("stdout", bytes("hij"))).toBeUndefined();
    expect(limit.droppedBytes).toBe(5);
    expect(limit.marker()).toEqual({ stream: "stderr", data: truncationMarker(5) });
  });

  test("exactly at the cap nothing is marked", () => {
    const limit = new OutputLimit(3);
    limit.take("stdout", bytes("abc"));
    expect(limit.marker()).toBeUndefined();
  });

  test("decodes characters split across reads", () => {
    const limit = new OutputLimit(100);
    const euro = bytes("€");
    expect(limit.take("stdout", euro.subarray(0, 1))?.data).toBe("");
    expect(limit.take("stdout", euro.subarray(1))?.data).toBe("€");
    expect(limit.flush("stdout")).toBe("");
  });
});
