/**
 * A tiny supervisor for long-running local processes (the local Worker, `computerd host`):
 * each child runs in its own process group so stopping it also stops whatever it spawned
 * (workerd), output is echoed with a name prefix and the tail is kept for errors.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** How to start one supervised process. */
export interface ProcessSpec {
  /** Short name used as the output prefix, e.g. "wrangler". */
  name: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Echo the child's output, prefixed with `[name]`, to this process's stdout/stderr (default true). */
  echo?: boolean;
}

/** How a supervised process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running supervised process. */
export interface Supervised {
  readonly name: string;
  readonly pid: number;
  /** Settles when the child itself exits (its process group may still be draining). */
  readonly exited: Promise<ExitInfo>;
  /** True once `exited` has settled. */
  hasExited(): boolean;
  /** The last lines the child printed (stdout and stderr interleaved), for error messages. */
  recentOutput(): string;
}

const KEPT_LINES = 200;
const POLL_MS = 50;
const KILL_WAIT_MS = 2000;

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A set of child processes, each the leader of its own process group, stopped together.
 * Children get no stdin (`/dev/null`), so nothing waits for a terminal. If this process is
 * killed with SIGKILL its children survive: call `stop()` on every other way out (the
 * constructor registers a synchronous SIGKILL of all groups on process exit as a last resort).
 */
export class ProcessGroup {
  readonly #children: { pid: number; supervised: Supervised }[] = [];
  #stopping: Promise<void> | undefined;

  constructor() {
    process.once("exit", () => {
      for (const child of this.#children) signalGroup(child.pid, "SIGKILL");
    });
  }

  /** Starts a process in a new process group. Throws if it cannot be spawned. */
  start(spec: ProcessSpec): Supervised {
    if (this.#stopping) throw new Error(`process group is stopping; not starting ${spec.name}`);
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`could not start ${spec.name} (${spec.command})`);
    const lines: string[] = [];
    const echo = spec.echo ?? true;
    const collect = (stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream) => {
      if (!stream) return;
      createInterface({ input: stream }).on("line", (line) => {
        lines.push(line);
        if (lines.length > KEPT_LINES) lines.shift();
        if (echo) out.write(`[${spec.name}] ${line}\n`);
      });
    };
    collect(child.stdout, process.stdout);
    collect(child.stderr, process.stderr);
    let done = false;
    const exited = waitForExit(child).finally(() => {
      done = true;
    });
    const supervised: Supervised = {
      name: spec.name,
      pid,
      exited,
      hasExited: () => done,
      recentOutput: () => lines.join("\n"),
    };
    this.#children.push({ pid, supervised });
    return supervised;
  }

  /** The processes started so far. */
  get processes(): readonly Supervised[] {
    return this.#children.map((c) => c.supervised);
  }

  /**
   * Stops one process (its whole group): SIGTERM, SIGKILL after `graceMs`, and forgets it, so
   * another can be started in its place.
   */
  async stopOne(child: Supervised, graceMs = 5000): Promise<void> {
    const index = this.#children.findIndex((c) => c.supervised === child);
    if (index < 0) return;
    this.#children.splice(index, 1);
    const pid = child.pid;
    signalGroup(pid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (groupAlive(pid) && Date.now() < deadline) await sleep(POLL_MS);
    if (groupAlive(pid)) signalGroup(pid, "SIGKILL");
    const killDeadline = Date.now() + KILL_WAIT_MS;
    while (groupAlive(pid) && Date.now() < killDeadline) await sleep(POLL_MS);
    await child.exited;
  }

  /**
   * Sends SIGTERM to every process group, waits up to `graceMs` for all of them to be empty,
   * then SIGKILLs what is left. Idempotent: later calls return the same promise.
   */
  stop(graceMs = 5000): Promise<void> {
    this.#stopping ??= this.#stopAll(graceMs);
    return this.#stopping;
  }

  async #stopAll(graceMs: number): Promise<void> {
    const pgids = this.#children.map((c) => c.pid);
    for (const pgid of pgids) signalGroup(pgid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (pgids.some(groupAlive) && Date.now() < deadline) await sleep(POLL_MS);
    for (const pgid of pgids) if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
    // Bounded: an orphaned grandchild stays a zombie (and "alive") if PID 1 never reaps it.
    const killDeadline = Date.now() + KILL_WAIT_MS;
    while (pgids.some(groupAlive) && Date.now() < killDeadline) await sleep(POLL_MS);
    await Promise.all(this.#children.map((c) => c.supervised.exited));
  }
}

function waitForExit(child: ChildProcess): Promise<ExitInfo> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: null, signal: null }));
  });
}
