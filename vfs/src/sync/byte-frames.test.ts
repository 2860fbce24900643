import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decodeFrame, encodeFrame, encodeMessage, encodeParts, encodeText } from "./byte-frames.ts";

/** Message trees as capnweb builds them at "jsonCompatibleWithBytes": JSON values and Uint8Arrays. */
const tree = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    // Strings that look like markers of some frame: never taken for bytes.
    fc.stringMatching(/^[0-9a-f]{16}$/).map((n) => `\u0000${n}:0`),
    fc.integer(),
    // JSON has no -0.
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 64 }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(
      fc.string().filter((k) => k !== "__proto__"),
      tie("value"),
      { maxKeys: 5 },
    ),
  ),
})).value;

/** Copies of `frame`'s bytes in a fresh ArrayBuffer, as a WebSocket hands them over. */
function received(frame: Uint8Array): ArrayBuffer {
  return frame.slice().buffer;
}

/** True when a Uint8Array lies anywhere in `value`. */
function hasBytes(value: unknown): boolean {
  if (value instanceof Uint8Array) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(hasBytes);
}

/** `structuredClone`, since encoding replaces the tree's bytes in place (capnweb's trees are fresh). */
const copy = <T>(value: T): T => structuredClone(value);

describe("binary frames", () => {
  test("a frame decodes to the message it encoded, bytes included", () => {
    fc.assert(
      fc.property(tree, (message) => {
        expect(decodeFrame(received(encodeFrame(copy(message))))).toEqual(message);
      }),
    );
  });

  test("the text form is capnweb's: bytes as base64 without padding", () => {
    const message = ["push", ["bytes", new Uint8Array([1, 2, 3, 4])], { a: new Uint8Array([255]) }];
    expect(JSON.parse(encodeText(message))).toEqual(["push", ["bytes", "AQIDBA"], { a: "/w" }]);
  });

  test("a frame's bytes are views of the frame, not copies", () => {
    const data = new Uint8Array(1 << 20).fill(7);
    const buffer = received(encodeFrame(["bytes", data]));
    const [, view] = decodeFrame(buffer) as [string, Uint8Array];
    expect(view.buffer).toBe(buffer);
    expect(view).toEqual(data);
  });

  test("the bytes travel beside the JSON: a frame is the header plus the bytes", () => {
    const data = new Uint8Array(100_000);
    const frame = encodeFrame([{ hash: "h", data }]);
    expect(frame.byteLength - data.byteLength).toBeLessThan(200);
  });

  test("in pieces, a frame is its header and then the message's own byte strings, not copies", () => {
    const a = new Uint8Array(1 << 20).fill(1);
    const b = new Uint8Array(3).fill(2);
    const parts = encodeParts([
      { hash: "a", data: a },
      { hash: "b", data: b },
    ]);
    if (typeof parts === "string") throw new Error("expected pieces");
    expect(parts.slice(1)).toHaveLength(2);
    expect(parts[1]).toBe(a);
    expect(parts[2]).toBe(b);
    expect(parts[0]?.byteLength).toBeLessThan(200);
  });

  test("pieces joined are the frame: they decode to the message, and one without bytes is text", () => {
    fc.assert(
      fc.property(tree, (message) => {
        const parts = encodeParts(copy(message));
        if (typeof parts === "string") {
          expect(hasBytes(message)).toBe(false);
          expect(JSON.parse(parts)).toEqual(message);
          return;
        }
        const joined = new Uint8Array(Buffer.concat(parts));
        expect(decodeFrame(received(joined))).toEqual(message);
      }),
    );
  });

  test("a message without bytes is JSON text, one with bytes a frame", () => {
    fc.assert(
      fc.property(tree, (message) => {
        const encoded = encodeMessage(copy(message));
        if (typeof encoded === "string") expect(JSON.parse(encoded)).toEqual(message);
        else expect(decodeFrame(received(encoded))).toEqual(message);
        expect(typeof encoded === "string").toBe(!hasBytes(message));
      }),
    );
  });

  test("a malformed frame is a TypeError", () => {
    const good = encodeFrame(["bytes", new Uint8Array([1, 2, 3])]);
    const bad = [
      new Uint8Array([1, 0]),
      good.subarray(0, good.byteLength - 1),
      new Uint8Array([...good, 9]),
      Uint8Array.of(2, 0, 0, 0, 123, 125),
      Uint8Array.of(255, 255, 255, 0),
    ];
    for (const frame of bad) expect(() => decodeFrame(received(frame))).toThrow(TypeError);
    const header = new TextEncoder().encode(JSON.stringify({ n: "ab", l: [1], m: ["\u0000ab:3"] }));
    const outOfRange = new Uint8Array([header.length, 0, 0, 0, ...header, 5]);
    expect(() => decodeFrame(received(outOfRange))).toThrow(TypeError);
  });
});
