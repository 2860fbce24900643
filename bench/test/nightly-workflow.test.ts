/**
 * .github/workflows/nightly-bench.yml: it runs nightly on the NVMe host, runs the benchmark
 * host job, fetches the previous nights, renders the report, publishes it whatever happened and
 * then fails on a regression — and every command it runs exists in this repository (make
 * targets, npm scripts, scripts it calls).
 */
import { accessSync, constants, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const read = (path: string) => readFileSync(join(REPO, path), "utf8");

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  name: string;
  on: { schedule?: { cron: string }[]; workflow_dispatch?: unknown };
  jobs: Record<string, { "runs-on": string | string[]; "timeout-minutes"?: number; steps: Step[] }>;
}

const workflow = parse(read(".github/workflows/nightly-bench.yml")) as Workflow;
const job = Object.values(workflow.jobs)[0];
const steps = job?.steps ?? [];
const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
/** GitHub's expression syntax, spelled without a JS template look-alike. */
const expr = (inner: string) => ["$", "{{ ", inner, " }}"].join("");
const indexOf = (match: (s: Step) => boolean) => steps.findIndex(match);

const MAKE_TARGETS = new Set([...read("Makefile").matchAll(/^([a-z][\w-]*):/gm)].map((m) => m[1]));
const NPM_SCRIPTS = new Set(Object.keys((JSON.parse(read("package.json")) as { scripts: object }).scripts));

describe("nightly-bench workflow", () => {
  it("runs every night (and by hand) on the NVMe host, with a time limit", () => {
    const cron = workflow.on.schedule?.[0]?.cron ?? "";
    expect(cron.split(" ")).toHaveLength(5);
    const [minute, hour] = cron.split(" ").map(Number);
    expect(minute).toBeGreaterThanOrEqual(0);
    expect(hour).toBeLessThan(24);
    expect(workflow.on).toHaveProperty("workflow_dispatch");
    expect(Object.keys(workflow.jobs)).toHaveLength(1);
    expect(job?.["runs-on"]).toContain("nvme");
    expect(job?.["timeout-minutes"]).toBeGreaterThan(20);
  });

  it("runs the host job, fetches the history, renders, publishes whatever happened, then compares", () => {
    const bench = indexOf((s) => /^make bench-host\b/.test(s.run ?? ""));
    const history = indexOf((s) => (s.run ?? "").includes("bench/nightly-history.sh"));
    const report = indexOf((s) => /^make bench-report\b/.test(s.run ?? ""));
    const publish = indexOf((s) => (s.uses ?? "").startsWith("actions/upload-artifact@"));
    const compare = indexOf((s) => /^npm run bench:compare -- /.test(s.run ?? ""));
    expect(steps[0]?.uses).toMatch(/^actions\/checkout@v\d+$/);
    expect([bench, history, report, publish, compare].every((i) => i > 0)).toBe(true);
    expect(bench < history && history < report && report < publish && publish < compare).toBe(true);
    expect(steps[publish]?.if).toBe("always()");
    expect(steps[publish]?.with).toMatchObject({ name: "bench-report", path: "bench/results/" });
    expect(steps[history]?.id).toBe("history");
    expect(steps[history]?.env?.GH_TOKEN).toBe(expr("github.token"));
    // The compare step gets last night's run and tonight's and its exit code fails the job.
    expect(steps[compare]?.run).toContain(expr("steps.history.outputs.previous"));
    expect(steps[compare]?.run).not.toMatch(/\|\|\s*true/);
    expect(steps[compare]?.if).toBe("steps.history.outputs.previous != ''");
  });

  it("calls only make targets, npm scripts and scripts this repository has", () => {
    const commands = runs.flatMap((run) => run.split("\n")).join("\n");
    const makes = [...commands.matchAll(/\bmake ([a-z][\w-]*)/g)].map((m) => m[1]);
    const npms = [...commands.matchAll(/\bnpm run ([\w:-]+)/g)].map((m) => m[1]);
    const files = [...commands.matchAll(/\b((?:bench|scripts|images)\/[\w./-]+\.sh)\b/g)].map(
      (m) => m[1] ?? "",
    );
    expect(makes.length + npms.length + files.length).toBeGreaterThanOrEqual(4);
    for (const target of makes) expect(MAKE_TARGETS, `make ${target}`).toContain(target);
    for (const script of npms) expect(NPM_SCRIPTS, `npm run ${script}`).toContain(script);
    for (const file of files) expect(() => accessSync(join(REPO, file), constants.X_OK), file).not.toThrow();
  });

  it("passes make bench-host a disk directory it understands", () => {
    const bench = steps.find((s) => /^make bench-host\b/.test(s.run ?? ""));
    expect(bench?.run).toMatch(/DISK_DIR=/);
    expect(read("Makefile")).toMatch(
      /bench-host: image\n\tnpm run bench:host -- .*\$\(if \$\(DISK_DIR\),--disk-dir/,
    );
  });
});
