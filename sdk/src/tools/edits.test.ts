/** The edit tool's pure part: exact replacements (unique unless replaceAll), all or nothing, and its diff. */
import { describe, expect, it } from "vitest";
import { applyEdits, unifiedDiff } from "./edits.ts";
import { capText, ToolError } from "./tool.ts";

function failure(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ToolError) return `${err.code}: ${err.message}`;
    throw err;
  }
  throw new Error("expected a ToolError");
}

describe("applyEdits", () => {
  it("applies edits in order; a later edit sees the earlier ones", () => {
    expect(
      applyEdits("a b c", [
        { old: "a", new: "x" },
        { old: "x b", new: "y" },
      ]),
    ).toBe("y c");
    expect(applyEdits("$1 and $&", [{ old: "$1", new: "$&$'" }])).toBe("$&$' and $&");
  });

  it("refuses an old that is missing, ambiguous or empty, naming the edit", () => {
    expect(failure(() => applyEdits("aa", [{ old: "b", new: "c" }]))).toBe(
      "EINVAL: edit 1 of 1: old text not found (nothing was changed)",
    );
    expect(
      failure(() =>
        applyEdits("aa", [
          { old: "x", new: "y" },
          { old: "a", new: "b" },
        ]),
      ),
    ).toMatch(/^EINVAL: edit 1 of 2/);
    expect(failure(() => applyEdits("a a", [{ old: "a", new: "b" }]))).toMatch(
      /^EINVAL: edit 1 of 1: old text matches 2 times/,
    );
    expect(failure(() => applyEdits("a", [{ old: "", new: "b" }]))).toBe("EINVAL: edit 1 of 1: old is empty");
  });

  it("replaceAll replaces every match", () => {
    expect(applyEdits("a a a", [{ old: "a", new: "bb", replaceAll: true }])).toBe("bb bb bb");
  });
});

describe("unifiedDiff and capText", () => {
  it("answers a unified diff of the change", () => {
    const diff = unifiedDiff("f.txt", "one\ntwo\n", "one\nTWO\n");
    expect(diff).toBe("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n");
  });

  it("keeps the head and the tail with a note of what was cut", () => {
    const text = "h".repeat(500) + "t".repeat(500);
    const capped = capText(text, 400, "read more");
    expect(capped.length).toBeLessThan(500);
    expect(capped).toMatch(/^h+\n\[\.\.\. 800 characters cut; read more \.\.\.\]\nt+$/);
    expect(capText("short", 400, "x")).toBe("short");
  });
});
