import { describe, expect, test } from "vitest";
import { RecentBlobs } from "./recent-blobs.ts";

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe("RecentBlobs", () => {
  test("holds blobs by hash up to its bound, dropping the oldest first", () => {
    const recent = new RecentBlobs(30);
    recent.note("a", bytes(10, 1));
    recent.note("b", bytes(10, 2));
    recent.note("c", bytes(10, 3));
    expect(recent.bytes).toBe(30);
    recent.note("d", bytes(10, 4));
    expect(recent.get("a")).toBeUndefined();
    expect(recent.get("b")).toEqual(bytes(10, 2));
    expect(recent.get("d")).toEqual(bytes(10, 4));
    expect(recent.bytes).toBe(30);
  });

  test("a hash held already is not counted twice; a blob past the bound is not held", () => {
    const recent = new RecentBlobs(30);
    recent.note("a", bytes(10, 1));
    recent.note("a", bytes(10, 1));
    expect(recent.bytes).toBe(10);
    recent.note("huge", bytes(31, 9));
    expect(recent.get("huge")).toBeUndefined();
    expect(recent.get("a")).toEqual(bytes(10, 1));
  });

  test("forget and clear let go of what reached the Durable Object", () => {
    const recent = new RecentBlobs(100);
    recent.note("a", bytes(10, 1));
    recent.note("b", bytes(20, 2));
    recent.forget(["a", "unknown"]);
    expect(recent.get("a")).toBeUndefined();
    expect(recent.bytes).toBe(20);
    recent.clear();
    expect(recent.get("b")).toBeUndefined();
    expect(recent.bytes).toBe(0);
  });
});
