/**
 * Test helper: runs `computerd serve` (FUSE mount, sync engine) as a child process — never in
 * the test process, which reads the mount — and connects it to a stand-in DO. Stops it with
 * SIGTERM or kills it with SIGKILL, as a crash would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FakeDo } from "./stand-in-do.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

/** A running `computerd serve`. */
export interface ServeProcess {
  readonly pid: number;
  readonly port: number;
  readonly secret: string;
  /** The JSON event lines printed so far. */
  readonly events: Record<string, unknown>[];
  stderr(): string;
  /** POST /connect to the stand-in DO (which then accepts this daemon's secret). */
  connect(fake: FakeDo): Promise<void>;
  /** Sends `signal` and resolves with the exit code (null after a signal death). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `computerd serve` on a free port with `stateDir` and `mountPoint`; resolves once it listens. */
export async function startServe(
  stateDir: string,
  mountPoint: string,
  extra: string[] = [],
): Promise<ServeProcess> {
  const secret = randomBytes(24).toString("hex");
  const child: ChildProcess = spawn(
    process.execPath,
    [
      MAIN,
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--state-dir",
      stateDir,
      "--mount-point",
      mountPoint,
      ...extra,
    ],
    { cwd: "/", env: { ...process.env, COMPUTERD_SECRET: secret }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const events: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    if (!child.stdout) throw new Error("no stdout");
    createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const event = JSON.parse(line) as Record<string, unknown>;
        events.push(event);
        if (event.event === "listening" && typeof event.port === "number") resolve(event.port);
      } catch {
        // Not an event line.
      }
    });
    void exited.then((code) => reject(new Error(`computerd serve exited (${code}):\n${stderr}`)));
  });
  const pid = child.pid ?? 0;
  return {
    pid,
    port,
    secret,
    events,
    stderr: () => stderr,
    async connect(fake) {
      fake.secret = secret;
      const res = await fetch(`http://127.0.0.1:${port}/connect`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ base: fake.url }),
      });
      if (res.status !== 200) throw new Error(`connect failed: ${res.status} ${await res.text()}`);
      await fake.session();
    },
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return await exited;
    },
  };
}
