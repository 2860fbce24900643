import { format } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatLog } from "./console-format.ts";

const primitive = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, 0, Number.NaN, Number.POSITIVE_INFINITY, true, false, null, undefined),
);
const anything = fc.oneof(
  primitive,
  fc.bigInt(),
  fc.array(primitive, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), primitive, { maxKeys: 3 }),
  fc.constantFrom("%s", "%d items", "100%", "%o", "%%", "%i"),
);

/** The text, or the error both must throw alike (util.format itself throws for some mixes). */
function outcome(run: () => string): string {
  try {
    return run();
  } catch (err) {
    return `throws ${String(err)}`;
  }
}

describe("formatLog", () => {
  it("is util.format for primitives, objects and format strings", () => {
    fc.assert(
      fc.property(fc.array(anything, { maxLength: 5 }), (args) => {
        expect(outcome(() => formatLog(args))).toBe(outcome(() => format(...args)));
      }),
      { numRuns: 500 },
    );
  });

  it("formats what the js runtime's console test logs", () => {
    expect(formatLog(["obj", { a: [1, 2] }, 3])).toBe("obj { a: [ 1, 2 ] } 3");
    expect(formatLog(["%s=%d", "n", 4])).toBe("n=4");
    expect(formatLog([-0, "x", 1n])).toBe("-0 x 1n");
    expect(formatLog([])).toBe("");
  });
});
