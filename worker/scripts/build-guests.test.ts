/**
 * What each built bundle holds: the shell guest no turndown and no domino (html-to-markdown
 * converts in a Dynamic Worker of its own, turndown.guest.js, with turndown's Node build and
 * domino), since V8 compiles the whole shell bundle in every new shell isolate (docs/BENCH.md,
 * "html-to-markdown in the DO").
 */
import { expect, it } from "vitest";
import { buildGuests } from "./build-guests.ts";

const TURNDOWN = /(^|[\\/])node_modules[\\/]turndown[\\/]/;
const DOMINO = /(^|[\\/])node_modules[\\/]@mixmark-io[\\/]domino[\\/]/;

it("the shell guest holds no turndown or domino; the converter's guest holds both", {
  timeout: 60_000,
}, async () => {
  const inputs = await buildGuests();
  const shell = inputs.get("shell.guest.js") ?? [];
  expect(shell.some((path) => path.includes("just-bash"))).toBe(true);
  expect(shell.filter((path) => TURNDOWN.test(path) || DOMINO.test(path))).toEqual([]);
  const host = inputs.get("turndown.guest.js") ?? [];
  expect(host.filter((path) => TURNDOWN.test(path))).toEqual([
    expect.stringMatching(/turndown[\\/]lib[\\/]turndown\.es\.js$/),
  ]);
  expect(host.some((path) => DOMINO.test(path))).toBe(true);
});
