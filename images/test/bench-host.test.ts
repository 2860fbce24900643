/**
 * `make bench-host` for real, as a --quick pass: the driver (bench/src/host/main.ts) runs
 * fs-bench in the IMAGE under docker compose (bench/compose.yaml) against the FUSE mount, tmpfs
 * and a bind-mounted disk directory under /var/tmp, as ComputerFleet's `benchmark` input does on
 * the NVMe host. Every quick scenario must succeed on all three targets, with the mount's
 * counters — the npm installs too: the image has npm, and the container reaches the registry
 * the way this host does (compose.yaml: its network, proxy variables and NODE_EXTRA_CA_CERTS) —
 * and the JSON must render to Markdown, SVG and HTML.
 * Needs a docker engine with compose, the image (`make image` first) and the npm registry.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FsBenchDocument } from "@computer/bench/document";
import { shellScenarios } from "@computer/bench/scenarios";
import { QUICK } from "@computer/bench/sizes";
import { afterAll, expect, it } from "vitest";

const IMAGE = process.env.IMAGE ?? "computer/computerd:latest";
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const diskDir = mkdtempSync("/var/tmp/computer-bench-host-test-");

afterAll(() => rmSync(diskDir, { recursive: true, force: true }));

it("runs fs-bench in the image on the mount, tmpfs and the disk, and renders the reports", () => {
  execFileSync("docker", ["image", "inspect", IMAGE], { stdio: "ignore" });
  const run = spawnSync(
    "npm",
    ["run", "--silent", "bench:host", "--", "--quick", "--image", IMAGE, "--disk-dir", diskDir],
    {
      cwd: REPO,
      encoding: "utf8",
      timeout: 900_000,
    },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.status, output.slice(-3000)).toBe(0);
  const files = run.stdout.trim().split("\n").slice(-4);
  const [json, markdown, svg, html] = files;
  expect(json).toMatch(/bench\/results\/fs-.*\.json$/);
  expect(markdown).toBe(json?.replace(/\.json$/, ".md"));
  expect(svg).toBe(json?.replace(/\.json$/, ".svg"));
  expect(html).toBe(json?.replace(/\.json$/, ".html"));
  const doc = JSON.parse(readFileSync(json ?? "", "utf8")) as FsBenchDocument;
  // Inside the container: its kernel, its node, the disk at /nvme.
  expect(doc.options).toMatchObject({ reps: 1, diskDir: "/nvme", tmpfsDir: "/dev/shm" });
  expect(doc.host.scenarioNode).toMatch(/^v24\./);
  // --quick runs every scenario at its quick size, the npm ones too: the image has npm.
  expect(doc.skipped).toBeUndefined();
  expect(doc.fleet?.unavailable).toMatch(/harness/);
  const quick = shellScenarios(QUICK);
  const ran = quick.map((s) => s.id);
  expect(ran).toEqual(expect.arrayContaining(["npm", "npm-install"]));
  expect(doc.results.map((r) => r.id)).toEqual(ran);
  for (const result of doc.results) {
    expect(result.error, result.id).toBeUndefined();
    expect(result.runs.map((r) => [r.target, r.error, r.samples.length])).toEqual([
      ["computerd", undefined, 1],
      ["tmpfs", undefined, 1],
      ["disk", undefined, 1],
    ]);
    const mount = result.runs[0]?.samples[0];
    expect(
      Object.values(mount?.timed?.fuse ?? {}).reduce((a, b) => a + b, 0),
      result.id,
    ).toBeGreaterThan(0);
    expect(mount?.withFence?.sql.statements, result.id).toBeGreaterThan(0);
  }
  expect(readFileSync(markdown ?? "", "utf8")).toContain(`| ${quick[0]?.name}`);
  expect(readFileSync(svg ?? "", "utf8")).toMatch(/^<svg/);
  expect(readFileSync(html ?? "", "utf8")).toContain('<div class="chart ratios"><svg');
}, 900_000);
