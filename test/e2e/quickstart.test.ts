/**
 * The README quick start against the real local fleet: first step by step over HTTP with
 * the API contract's statuses and shapes, then the README's own curl block, run as written.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { type Fleet, startFleet } from "@computer/fleet";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const README_URL = "http://127.0.0.1:8787";
const README_TOKEN_FILE = ".computer/admin-token";

/** The shell block that follows the `<!-- marker: ... -->` comment in README.md. */
function readmeQuickStart(marker = "quickstart"): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const match = new RegExp(`<!-- ${marker}:[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no ${marker} block`);
  return match[1];
}

let fleet: Fleet;

beforeAll(async () => {
  // The quick start runs a container command too, so the fleet includes `computerd host`.
  fleet = await startFleet({ computerdHost: true });
});

afterAll(async () => {
  await fleet?.stop();
});

describe("README quick start over HTTP", () => {
  const auth = () => ({ Authorization: `Bearer ${fleet.adminToken}` });
  const computer = () => `${fleet.url}/v1/computers/demo`;

  it("answers /healthz without a token", async () => {
    const res = await fetch(`${fleet.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
  });

  it("creates a computer, then finds it exists", async () => {
    const created = await fetch(computer(), { method: "PUT", headers: auth() });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ id: "demo", usedBytes: expect.any(Number) });
    const again = await fetch(computer(), { method: "PUT", headers: auth() });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ id: "demo" });
  });

  it("writes a file, creating its parent folder", async () => {
    const res = await fetch(`${computer()}/files/notes/hello.txt`, {
      method: "PUT",
      headers: auth(),
      body: "hello, computer",
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ path: expect.stringMatching(/notes\/hello\.txt$/), size: 15 });
  });

  it("reads the file back", async () => {
    const res = await fetch(`${computer()}/files/notes/hello.txt`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe("15");
    expect(await res.text()).toBe("hello, computer");
  });

  it("lists its directory", async () => {
    const res = await fetch(`${computer()}/files/notes`, { headers: auth() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { entries: { name: string; type: string; size: number }[] };
    expect(body.entries).toEqual([expect.objectContaining({ name: "hello.txt", type: "file", size: 15 })]);
  });

  it("answers a missing file with a 404 JSON error", async () => {
    const res = await fetch(`${computer()}/files/missing.txt`, { headers: auth() });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: { code: "ENOENT" } });
  });
});

describe("README quick start as written", () => {
  const dir = mkdtempSync(join(tmpdir(), "computer-quickstart-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the curl block: the file, the listing, the 404 error and two execs", async () => {
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${fleet.adminToken}\n`, { mode: 0o600 });
    const script = readmeQuickStart()
      .replaceAll(README_URL, fleet.url)
      .replaceAll(README_TOKEN_FILE, tokenFile);
    expect(script).toContain(fleet.url);
    const { stdout } = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", script], { cwd: dir });
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(7);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ id: "demo" });
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ size: 15 });
    expect(lines[2]).toBe("hello, computer");
    expect(JSON.parse(lines[3] ?? "")).toMatchObject({
      entries: [expect.objectContaining({ name: "hello.txt" })],
    });
    expect(JSON.parse(lines[4] ?? "")).toMatchObject({ error: { code: "ENOENT" } });
    expect(JSON.parse(lines[5] ?? "")).toMatchObject({
      runtime: "container",
      status: "completed",
      exitCode: 0,
      stdout: "hello, computer",
      sync: { status: "complete" },
    });
    expect(JSON.parse(lines[6] ?? "")).toMatchObject({
      runtime: "shell",
      status: "completed",
      exitCode: 0,
      stdout: "made in a container\nbox.txt\nhello.txt\n",
    });
  });
});

describe("README CLI quick start as written", () => {
  const dir = mkdtempSync(join(tmpdir(), "computer-quickstart-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the CLI block from the repo root: login, create, put, cat, ls and two execs", async () => {
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${fleet.adminToken}\n`, { mode: 0o600 });
    const script = readmeQuickStart("quickstart-cli")
      .replaceAll(README_URL, fleet.url)
      .replaceAll(README_TOKEN_FILE, tokenFile);
    expect(script).toContain("npx computer");
    // The pinned node first on PATH (the bin's `env node`), and a config folder of its own.
    const env = {
      ...process.env,
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      COMPUTER_CONFIG_DIR: join(dir, "config"),
    };
    // stdin is /dev/null, as under cron or a terminal: exec forwards a stdin that is not a
    // terminal, and a pipe nobody closes would keep it waiting.
    const run = spawnSync("bash", ["-euo", "pipefail", "-c", script], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines.slice(0, 6)).toEqual([
      `logged in to ${fleet.url} (config: ${join(dir, "config", "config.json")})`,
      "created box",
      "using box",
      "hello, computer",
      "hello.txt",
      "hello, computer",
    ]);
    expect(JSON.parse(lines.slice(6).join("\n"))).toMatchObject({
      runtime: "shell",
      status: "completed",
      exitCode: 0,
      stdout: "made in a container\n",
    });
  }, 120_000);
});
