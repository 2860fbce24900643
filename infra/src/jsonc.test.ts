/** JSONC parsing: comments and trailing commas go, strings stay byte for byte. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseJsonc, stripJsonc } from "./jsonc.ts";

describe("parseJsonc", () => {
  it("drops line and block comments and trailing commas", () => {
    const text = `{
      // a comment
      "a": 1, /* inline */ "b": [1, 2,],
      "c": { "d": true, },
    }`;
    expect(parseJsonc(text)).toEqual({ a: 1, b: [1, 2], c: { d: true } });
  });

  it("keeps comment markers, commas and escaped quotes inside strings", () => {
    const text = `{ "url": "https://x/y", "glob": "a/*b*/c", "odd": "x,]", "q": "say \\"hi\\" // no" }`;
    expect(parseJsonc(text)).toEqual({
      url: "https://x/y",
      glob: "a/*b*/c",
      odd: "x,]",
      q: 'say "hi" // no',
    });
  });

  it("rejects an unterminated block comment", () => {
    expect(() => stripJsonc('{ "a": 1 /* open')).toThrow(SyntaxError);
  });

  it("reads the Worker's own wrangler.jsonc", () => {
    const text = readFileSync(new URL("../../worker/wrangler.jsonc", import.meta.url), "utf8");
    expect(parseJsonc(text)).toMatchObject({ main: "src/index.ts" });
  });
});
