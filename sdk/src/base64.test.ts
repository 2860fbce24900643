/** Base64 round trip over any bytes, large ones included. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "./base64.ts";

describe("base64", () => {
  it("round-trips any bytes and matches btoa", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(fromBase64(toBase64(bytes))).toEqual(bytes);
      }),
    );
    expect(toBase64(new TextEncoder().encode("hi!"))).toBe("aGkh");
  });

  it("handles values larger than one chunk", () => {
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    expect(fromBase64(toBase64(big))).toEqual(big);
  });
});
