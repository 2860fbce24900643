/** addon-fresh.ts: which native sources are newer than the built addon. */

import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { newerSources } from "./addon-fresh.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A native folder whose files have the given modification times (seconds). */
function nativeDir(times: Record<string, number>): string {
  dir = mkdtempSync(join(tmpdir(), "computerd-addon-fresh-"));
  for (const [name, seconds] of Object.entries(times)) {
    writeFileSync(join(dir, name), "");
    utimesSync(join(dir, name), seconds, seconds);
  }
  return dir;
}

it("names the sources changed after the addon was built, and only those", () => {
  const native = nativeDir({
    "a.c": 100,
    "b.h": 300,
    "binding.gyp": 250,
    "notes.md": 400,
    "fuse3.node": 200,
  });
  expect(newerSources(join(native, "fuse3.node"), native)).toEqual(["b.h", "binding.gyp"]);
  expect(newerSources(join(native, "fuse3.node"), nativeDir({ "a.c": 100, "fuse3.node": 200 }))).toEqual([]);
});

it("leaves a missing addon to the tests that need it", () => {
  expect(newerSources(join(nativeDir({ "a.c": 100 }), "fuse3.node"), dir)).toEqual([]);
});
