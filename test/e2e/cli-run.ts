/**
 * Runs the real `computer` binary (node_modules/.bin/computer, the package's bin) against a
 * fleet: the pinned Node first on PATH, the fleet's URL and a token in the environment, a
 * private config folder. Answers exit code, stdout as bytes and as text, and stderr.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";

/** The package bin, as `npm install` links it. */
export const CLI = join(REPO_ROOT, "node_modules", ".bin", "computer");

/** What one run of the CLI did. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  bytes: Buffer;
  stderr: string;
}

/** Environment for the CLI: the pinned node first on PATH, then `env`. */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of ["COMPUTER_URL", "COMPUTER_TOKEN", "COMPUTER_ID", "COMPUTER_CONFIG_DIR"])
    delete base[key];
  return { ...base, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, ...env };
}

/** Runs `computer ...args` (or `bin`); `input` is written to its stdin (closed either way). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { input?: Buffer | string; cwd?: string; bin?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.bin ?? CLI, args, { env: cliEnv(env), cwd: options.cwd ?? REPO_ROOT });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const bytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        bytes,
        stdout: bytes.toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.end(options.input ?? "");
  });
}
