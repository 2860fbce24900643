/**
 * Running a scenario's bash in a directory: a clean, fixed environment (no npm_* variables from
 * `npm run`, git identity and config pinned, only the host's way to the network kept), stdout discarded, stderr kept for errors. The
 * timed part is measured inside bash with $EPOCHREALTIME, so bash's own start-up is not in it;
 * the wall time around the whole process is recorded beside it.
 */
import { spawn, spawnSync } from "node:child_process";

/**
 * How this machine reaches the network, kept where set: the npm scenarios warm npm's cache from
 * the registry through the host's proxy and, behind a TLS-inspecting one, its extra CA bundle
 * (bench/compose.yaml hands them into the image's container).
 */
const NETWORK_VARS = [
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
];

/** The environment of every scenario script. HOME stays: npm's warm cache lives there. */
export function scenarioEnv(from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const network = NETWORK_VARS.flatMap((name) => (from[name] ? [[name, from[name]] as const] : []));
  return {
    ...Object.fromEntries(network),
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: from.HOME ?? "/root",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TZ: "UTC",
    GIT_AUTHOR_NAME: "fs-bench",
    GIT_AUTHOR_EMAIL: "fs-bench@example.invalid",
    GIT_COMMITTER_NAME: "fs-bench",
    GIT_COMMITTER_EMAIL: "fs-bench@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    npm_config_update_notifier: "false",
  };
}

/** What one script did. */
export interface ShellResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last few KiB of stderr. */
  stderr: string;
  /** Wall time of the bash process, spawn to exit. */
  wallMs: number;
  /** The timed section's time as bash measured it (timed scripts only). */
  timedMs?: number;
}

const STDERR_KEPT = 4096;

/** "1700000000.123456" (EPOCHREALTIME) to microseconds, exactly. */
function micros(stamp: string): number {
  const [sec, frac = ""] = stamp.trim().split(".");
  return Number(sec) * 1e6 + Number(frac.padEnd(6, "0").slice(0, 6));
}

/** Wraps `body` so bash reports the time it took on fd 3. */
function timedScript(body: string): string {
  return `t0=$EPOCHREALTIME\n${body}\nt1=$EPOCHREALTIME\nprintf '%s %s\\n' "$t0" "$t1" >&3\n`;
}

/**
 * Runs `body` with bash (`set -eo pipefail`) in `cwd`. With `timed`, the body's own time is
 * returned as `timedMs` (absent if the body failed). Never throws for a failing script.
 */
export function runShell(body: string, cwd: string, options: { timed?: boolean } = {}): Promise<ShellResult> {
  const script = `set -eo pipefail\n${options.timed ? timedScript(body) : body}`;
  const started = process.hrtime.bigint();
  const child = spawn("bash", ["-c", script, "fs-bench"], {
    cwd,
    env: scenarioEnv(),
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let fd3 = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const timing = child.stdio[3];
  if (timing && "setEncoding" in timing) {
    timing.setEncoding("utf8");
    timing.on("data", (chunk: string) => {
      fd3 += chunk;
    });
  }
  return new Promise((resolve) => {
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const result: ShellResult = { exitCode, signal, stderr: stderr.trim(), wallMs };
      const [t0, t1] = fd3.trim().split(" ");
      if (options.timed && exitCode === 0 && t0 && t1) result.timedMs = (micros(t1) - micros(t0)) / 1000;
      resolve(result);
    };
    child.once("error", (err) => {
      stderr = `${stderr}\n${err.message}`;
      finish(null, null);
    });
    // "close", not "exit": fd 3 and stderr are fully read by then.
    child.once("close", finish);
  });
}

/** A one-line description of a failed script, for errors. */
export function describeFailure(what: string, result: ShellResult): string {
  const how = result.signal ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
  const tail = result.stderr.split("\n").slice(-6).join(" | ");
  return `${what}: ${how}${tail ? `: ${tail}` : ""}`;
}

/** True when `command` is on the scenarios' PATH. */
export function commandExists(command: string): boolean {
  return (
    spawnSync("bash", ["-c", `command -v ${command}`], { env: scenarioEnv(), stdio: "ignore" }).status === 0
  );
}
