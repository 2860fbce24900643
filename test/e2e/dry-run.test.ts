/**
 * The deploy bundle builds: `wrangler deploy --dry-run` of worker/wrangler.jsonc succeeds
 * offline and writes the bundled Worker to --outdir.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, WORKER_CONFIG, wranglerEnv } from "@computer/fleet/wrangler-dev";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const outdir = mkdtempSync(join(tmpdir(), "computer-dry-run-"));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it("wrangler deploy --dry-run bundles the Worker", async () => {
  const args = [
    `${REPO_ROOT}/node_modules/wrangler/bin/wrangler.js`,
    "deploy",
    "--dry-run",
    "--config",
    WORKER_CONFIG,
    "--outdir",
    outdir,
  ];
  // Without this a dry run would try to build the container image.
  if (/"containers"\s*:/.test(readFileSync(WORKER_CONFIG, "utf8"))) args.push("--containers-rollout=none");
  const { stdout } = await run(process.execPath, args, {
    cwd: REPO_ROOT,
    env: wranglerEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
  expect(stdout).toContain("--dry-run: exiting now.");
  expect(readdirSync(outdir)).toContain("index.js");
}, 120_000);
