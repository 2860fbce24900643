/**
 * `computer shell` and `computer watch` (the real binary) on the local fleet: the remote
 * shell's exit status becomes the CLI's (container pty and line-edited shell), the terminal's
 * output reaches stdout, and watch prints the changes made while it runs.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { ComputerClient } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, runCli } from "./cli-run.ts";

let fleet: Fleet;
let env: Record<string, string>;
const ID = "cli-live";
const dir = mkdtempSync(join(tmpdir(), "computer-cli-live-"));

beforeAll(async () => {
  fleet = await startFleet({ computerdHost: containerCapable });
  env = {
    COMPUTER_URL: fleet.url,
    COMPUTER_TOKEN: fleet.adminToken,
    COMPUTER_ID: ID,
    COMPUTER_CONFIG_DIR: join(dir, "config"),
  };
  await new ComputerClient({ url: fleet.url, token: fleet.adminToken }).computers.create(ID);
});

afterAll(async () => {
  await fleet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("computer shell", () => {
  it("shell runtime: the remote exit status is the CLI's, the output reaches stdout", async () => {
    const run = await runCli(["shell", "--runtime", "shell"], env, {
      input: "echo from-cli-shell\rexit 7\r",
    });
    expect(run.stdout).toContain("from-cli-shell");
    expect(run.code, run.stderr).toBe(7);
  });

  it.runIf(containerCapable)(
    "container: a real pty; exit 3 exits the CLI with 3",
    async () => {
      const input = "[ -t 0 ] && echo on-a-t''ty; echo pty-$((40+2))\rexit 3\r";
      const run = await runCli(["shell"], env, { input });
      expect(run.stdout).toContain("on-a-tty");
      expect(run.stdout).toContain("pty-42");
      expect(run.code, run.stderr).toBe(3);
    },
    120_000,
  );

  it("--runtime js is a usage error", async () => {
    const run = await runCli(["shell", "--runtime", "js"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^computer: /);
  });
});

describe("computer watch", () => {
  it("prints the changes under PATH as they happen (--json: one object a line)", async () => {
    const child = spawn(CLI, ["watch", "w", "--json"], { env: cliEnv(env), cwd: dir });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const api = new ComputerClient({ url: fleet.url, token: fleet.adminToken }).computer(ID);
    // Give the stream a moment to open, then write until it reports the file.
    const deadline = Date.now() + 20_000;
    await api.files.write("other.txt", "not watched");
    while (!out.includes('"/w/a.txt"') && Date.now() < deadline) {
      await api.files.write("w/a.txt", "watched");
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    child.kill("SIGINT");
    await new Promise((resolve) => child.on("close", resolve));
    const lines = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { path: string; event: string });
    expect(lines.some((l) => l.path === "/w/a.txt" && l.event === "changed")).toBe(true);
    expect(lines.every((l) => l.path === "/w" || l.path.startsWith("/w/"))).toBe(true);
  }, 60_000);
});
