/**
 * The deploy path offline: the fleet's generated wrangler config, written and deployed by the
 * very script the deploy command runs, passes `wrangler deploy --dry-run` on the real Worker
 * (bundled with its bindings, migrations and container class; the container image is not built:
 * `--containers-rollout=none`), with the admin token supplied only through the environment.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { DEFAULT_REPO_ROOT } from "./computer-fleet.ts";
import { deployScript } from "./deploy-script.ts";
import { deployConfig, readWranglerConfig } from "./wrangler-config.ts";

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "infra-dry-run-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it("wrangler deploy --dry-run accepts the generated config and bundles the Worker", async () => {
  const basePath = `${DEFAULT_REPO_ROOT}/worker/wrangler.jsonc`;
  const config = deployConfig(readWranglerConfig(basePath), {
    basePath,
    workerName: "dry-run-fleet",
    accountId: "0123456789abcdef0123456789abcdef",
    bucketName: "dry-run-fleet-artifacts",
    instanceType: "standard-1",
    maxInstances: 5,
    workersDev: true,
  });
  const outdir = join(work, "out");
  const script = deployScript(
    {
      wrangler: [process.execPath, `${DEFAULT_REPO_ROOT}/node_modules/wrangler/bin/wrangler.js`],
      dir: join(work, "deploy"),
      config: JSON.stringify(config, null, 2),
    },
    ["--dry-run", "--containers-rollout=none", "--outdir", outdir],
  );
  const { stdout } = await run("bash", ["-c", script], {
    cwd: DEFAULT_REPO_ROOT,
    env: {
      ...process.env,
      COMPUTER_ADMIN_TOKEN: "a".repeat(48),
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      XDG_CONFIG_HOME: `${DEFAULT_REPO_ROOT}/.config`,
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  expect(stdout).toContain("--dry-run: exiting now.");
  // wrangler lists the bindings it would upload.
  for (const binding of [
    "env.COMPUTER (Computer)",
    "env.REGISTRY (Registry)",
    "env.LOADER",
    "env.ARTIFACTS",
  ]) {
    expect(stdout).toContain(binding);
  }
  expect(stdout).toContain("dry-run-fleet-artifacts");
  expect(readdirSync(outdir)).toContain("index.js");
  expect(readFileSync(join(work, "deploy", "wrangler.json"), "utf8")).toContain('"name": "dry-run-fleet"');
  expect(readFileSync(join(work, "deploy", "secrets.env"), "utf8")).not.toContain("aaaa");
}, 180_000);
