/**
 * `computerd serve` as a process: it listens, takes its secret out of its environment so no
 * command sees it, answers execs (round trip measured here), and stops on SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tempDir } from "../../test/exec-harness.ts";

const BIN = fileURLToPath(new URL("../../bin/computerd.js", import.meta.url));
const secret = randomBytes(24).toString("hex");
let child: ChildProcess;
let lines: AsyncIterator<string>;
let base = "";

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${secret}`, ...(init.headers as Record<string, string>) },
  });
const exec = async (source: string) =>
  (await (await call("/exec", { method: "POST", body: JSON.stringify({ source }) })).json()) as {
    stdout: string;
    status: string;
  };

beforeAll(async () => {
  const mount = tempDir("computerd-serve-");
  child = spawn(
    process.execPath,
    [
      BIN,
      "serve",
      ...["--host", "127.0.0.1", "--port", "0", "--mount-point", mount, "--mount-backend", "none"],
      ...["--state-dir", tempDir()],
    ],
    { env: { ...process.env, COMPUTERD_SECRET: secret }, stdio: ["ignore", "pipe", "inherit"] },
  );
  if (!child.stdout) throw new Error("no stdout");
  lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  const listening = JSON.parse(String(first.value)) as { event: string; port: number };
  expect(listening.event).toBe("listening");
  base = `http://127.0.0.1:${listening.port}`;
});
afterAll(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
});

describe("computerd serve", () => {
  test("answers /health and execs; no command sees the secret", async () => {
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ ok: true, version: "0.1.0" });
    const result = await exec("env; echo; cat /proc/self/environ | tr '\\0' '\\n'");
    expect(result.status).toBe("completed");
    expect(result.stdout).toContain("PATH=");
    expect(result.stdout).not.toContain(secret);
    expect(result.stdout).not.toContain("COMPUTERD_SECRET");
  });

  test("exec round trip of `true`, buffered, p50 over 100 runs", async () => {
    const times: number[] = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      expect((await exec("true")).status).toBe("completed");
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const p50 = times[49] ?? 0;
    console.log(
      `exec round trip of \`true\` (POST /exec, buffered): p50 ${p50.toFixed(2)} ms, p90 ${(times[89] ?? 0).toFixed(2)} ms`,
    );
    expect(p50).toBeLessThan(250);
  });

  test("stops on SIGTERM", async () => {
    child.kill("SIGTERM");
    const stopped = await lines.next();
    expect(JSON.parse(String(stopped.value))).toEqual({ event: "stopped", signal: "SIGTERM" });
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});
