/**
 * Test helper: runs `computerd mount` as a child process (never inside the test
 * process: a FUSE daemon must not serve its own callers) and stops it with a signal.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

/** A running daemon. */
export interface Daemon {
  readonly pid: number;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Sends `signal` and resolves with the "unmounted" event (undefined after SIGKILL). */
  stop(signal?: NodeJS.Signals): Promise<Record<string, unknown> | undefined>;
}

/** Starts a daemon serving `stateDir` at `mountPoint`; resolves once it is mounted. */
export function startDaemon(stateDir: string, mountPoint: string, extra: string[] = []): Promise<Daemon> {
  const child: ChildProcess = spawn(
    process.execPath,
    [MAIN, "mount", "--state", stateDir, "--mount-point", mountPoint, ...extra],
    { cwd: "/", stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  const events: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    let nl = stdout.indexOf("\n");
    while (nl >= 0) {
      const line = stdout.slice(0, nl);
      stdout = stdout.slice(nl + 1);
      try {
        events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not an event line.
      }
      for (const wake of waiters.splice(0)) wake();
      nl = stdout.indexOf("\n");
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

  function waitFor(event: string): Promise<Record<string, unknown> | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const found = events.find((e) => e.event === event);
        if (found) resolve(found);
        else waiters.push(check);
      };
      check();
      void exited.then(() => resolve(events.find((e) => e.event === event)));
    });
  }

  return waitFor("mounted").then((mounted) => {
    if (!mounted || child.pid === undefined) throw new Error(`computerd did not mount:\n${stderr}`);
    const pid = child.pid;
    return {
      pid,
      stderr: () => stderr,
      async stop(signal: NodeJS.Signals = "SIGTERM") {
        child.kill(signal);
        const [unmounted] = await Promise.all([waitFor("unmounted"), exited]);
        return unmounted;
      },
    };
  });
}
