/**
 * The DO's side of html-to-markdown: a guest's request is checked before turndown sees it, the
 * converter's Dynamic Worker (the real guest bundle) converts, and the Markdown is held to the
 * guest's output limit.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Converter, HTML_MAX_LENGTH, htmlToMarkdown, turndownConverter } from "./html-to-markdown.ts";

/** One computer's converter (as a kept shell id gives it), counting its calls. */
const shellId = `test-${crypto.randomUUID()}`;
let conversions = 0;
function converter(): Converter {
  conversions++;
  return turndownConverter(env.LOADER, shellId);
}

const request = {
  html: "<h1>T</h1><p>a <b>b</b></p>",
  options: { headingStyle: "atx" },
  remove: [],
  maxOutputBytes: 1024,
};

describe("htmlToMarkdown (the DO's conversion)", () => {
  it("converts with turndown's Node build (domino parses: a Worker has no DOM)", async () => {
    expect(await htmlToMarkdown(request, converter)).toEqual({ ok: true, value: "# T\n\na **b**" });
    const removed = await htmlToMarkdown(
      {
        ...request,
        html: "<p>x</p><script>y()</script>",
        remove: ["script"],
      },
      converter,
    );
    expect(removed).toEqual({ ok: true, value: "x" });
    // Without a kept shell isolate (a js exec): a fresh converter for the call.
    const fresh = await htmlToMarkdown(request, () => turndownConverter(env.LOADER, undefined));
    expect(fresh).toEqual({ ok: true, value: "# T\n\na **b**" });
  });

  it("refuses options turndown would take from no command: EINVAL", async () => {
    const before = conversions;
    for (const options of [
      { bulletListMarker: "x" },
      { headingStyle: "none" },
      { rules: "x" },
      { hr: 3 },
      { blankReplacement: () => "" },
    ]) {
      const result = await htmlToMarkdown({ ...request, options } as never, converter);
      expect(result, JSON.stringify(Object.keys(options))).toMatchObject({
        ok: false,
        error: { code: "EINVAL" },
      });
    }
    for (const bad of [{ remove: ["a b"] }, { remove: "script" }, { html: 5 }, { maxOutputBytes: -1 }]) {
      const result = await htmlToMarkdown({ ...request, ...bad } as never, converter);
      expect(result, JSON.stringify(bad)).toMatchObject({ ok: false, error: { code: "EINVAL" } });
    }
    // Refused before the converter is even loaded.
    expect(conversions).toBe(before);
  });

  it("holds input and output to their limits: E2BIG, EFBIG", async () => {
    const huge = await htmlToMarkdown({ ...request, html: "x".repeat(HTML_MAX_LENGTH + 1) }, converter);
    expect(huge).toMatchObject({ ok: false, error: { code: "E2BIG" } });
    // "# T\n\na **b**" is 12 bytes; with the guest's newline 13.
    expect(await htmlToMarkdown({ ...request, maxOutputBytes: 13 }, converter)).toMatchObject({ ok: true });
    expect(await htmlToMarkdown({ ...request, maxOutputBytes: 12 }, converter)).toMatchObject({
      ok: false,
      error: { code: "EFBIG" },
    });
    const wide = await htmlToMarkdown({ ...request, html: "<p>é</p>", maxOutputBytes: 2 }, converter);
    expect(wide).toMatchObject({ ok: false, error: { code: "EFBIG" } });
  });
});
