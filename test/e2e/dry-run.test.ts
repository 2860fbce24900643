/**
 * The deploy bundle builds: `wrangler deploy --dry-run` of worker/wrangler.jsonc succeeds
 * offline and writes the bundled Worker to --outdir (fleet/src/worker-bundle.ts, which the
 * local fleet serves), the guests and the console as modules of their own beside the entry.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWorkerBundle } from "@computer/fleet/worker-bundle";
import { afterAll, expect, it } from "vitest";

const outdir = mkdtempSync(join(tmpdir(), "computer-dry-run-"));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it("wrangler deploy --dry-run bundles the Worker", async () => {
  const bundle = await buildWorkerBundle(outdir);
  const files = readdirSync(bundle.dir);
  expect(files).toContain("index.js");
  // The guests and the console, imported as text, are modules of their own beside the entry.
  expect(files).toContainEqual(expect.stringMatching(/-shell\.guest\.js$/));
  expect(files).toContainEqual(expect.stringMatching(/-app\.console\.js$/));
  // What a rebuild of make dev's Worker depends on: the sources esbuild read.
  expect(bundle.inputs).toContain(join(import.meta.dirname, "../../worker/src/index.ts"));
}, 120_000);
