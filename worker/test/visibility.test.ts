/**
 * A file written by the shell runtime, the js runtime or the files API is visible to the other
 * two right after the write returns — one test per writer/reader pair (the container's pairs
 * run against the real fleet in test/e2e/visibility.test.ts).
 */
import { describe, it } from "vitest";
import { api, createComputer } from "./helpers.ts";
import { checkPair, pairs } from "./visibility.ts";

describe("cross-runtime visibility", () => {
  for (const [writer, reader] of pairs(["api", "shell", "js"])) {
    it(`${writer} writes, ${reader} reads right after`, async () => {
      await checkPair(api, await createComputer(), writer, reader);
    });
  }
});
