/**
 * A computer's held sandbox (`computerd host` over the image's root filesystem): the sandbox a
 * command would get (rootfs-sandbox.ts: the computer's user namespace over its subordinate ids,
 * bubblewrap with its root at `/` and its mount at /workspace, the command network) is started
 * once, holding a shell that only waits, and each command enters it with computerd-enter
 * (native/enter.c) instead of starting bubblewrap again: it joins the held network, user, mount,
 * uts and cgroup namespaces and gets pid, mount, ipc, uts and cgroup namespaces, /proc and
 * /dev of its own, exactly as bubblewrap gives each command, for a fraction of the cost (no
 * user namespace to map, no root to assemble, two execs fewer). A terminal's shell, and every
 * command while the holder is not up, takes the per-command sandbox (`fallback`).
 */
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type CommandProcess, spawnDirect } from "./command-process.ts";
import { DEFAULT_PATH } from "./env.ts";
import type { Spawner } from "./spawner.ts";
import type { CommandWrapper, SpawnPlan } from "./wrapper.ts";

/** The `computerd-enter` program (native/enter.c, built by build:native). */
export const ENTER_HELPER = fileURLToPath(
  new URL("../../native/build/Release/computerd-enter", import.meta.url),
);

/** The namespaces a command joins, in computerd-enter's order. */
const JOINED = ["net", "user", "mnt", "uts", "cgroup"] as const;

/**
 * What the holder runs: a shell that says it runs (bubblewrap has set the sandbox up by then;
 * its child pid comes earlier, before the mounts) and waits on a pipe only computerd writes to.
 */
const HOLD = "echo held && read -r _";

/** After a failed start, commands take the fallback this long before the holder is tried again. */
const RETRY_MS = 30_000;

/**
 * The descriptor bubblewrap writes its child's pid to (`--info-fd`): its stderr, which it closes
 * in the sandbox (the holder's shell writes nothing there), so the spawner's three pipes suffice.
 */
const INFO_FD = 2;

/** How the held sandbox is made. */
export interface HeldSandboxOptions {
  /**
   * The per-command sandbox's wrapper with the command network's (rootfs-sandbox.ts, joined to
   * the sandbox network where there is one) for argv ending in bwrap's options: the holder is
   * that plus `--info-fd 3 -- /bin/sh -c HOLD`.
   */
  holderPlan: (bwrapTail: string[]) => SpawnPlan;
  /** The per-command wrapper: terminals, and commands while no holder runs. */
  fallback: CommandWrapper;
  /** HOME of the sandbox's commands (the rootfs's /root). */
  home: string;
  /** Descriptors of the daemon the holder must not inherit (the FUSE device). */
  sealedFds?: readonly number[];
  /**
   * The daemon's spawner (spawner.ts), once up: it forks the holder (a fork of Node here took
   * 20–30 ms of a new computer's start); undefined: Node spawns it.
   */
  spawner?: () => Promise<Spawner | undefined>;
  enter?: string;
  log?: (message: string) => void;
  startTimeoutMs?: number;
}

/** One running holder: bubblewrap's child pid and its namespaces' inodes, as computerd-enter checks them. */
interface Holder {
  child: CommandProcess;
  pid: number;
  inodes: string;
  exited: boolean;
}

/** The inodes of `pid`'s namespaces in computerd-enter's notation (`net:N,user:N,...`). */
function namespaceInodes(pid: number): string {
  return JOINED.map((name) => `${name}:${statSync(`/proc/${pid}/ns/${name}`).ino}`).join(",");
}

/** Bubblewrap's `{"child-pid": N}` from its stderr (INFO_FD), once the holder said it runs. */
function childPid(child: CommandProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let said = "";
    let pid: number | undefined;
    // bubblewrap's own errors come here too: the tail goes into the failure's message.
    let stderr = "";
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.signalGroup("SIGKILL");
      reject(new Error(`the held sandbox did not start: ${why} ${stderr}`.trim()));
    };
    const timer = setTimeout(() => fail("no child pid in time"), timeoutMs);
    const ready = () => {
      if (settled || pid === undefined || !said.includes("held\n")) return;
      settled = true;
      clearTimeout(timer);
      resolve(pid);
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
      const match = /"child-pid"\s*:\s*(\d+)/.exec(stderr);
      if (match) pid = Number(match[1]);
      ready();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      ready();
    });
    // Its exit is told once its output is all here (the spawner reports it on a pipe of its own).
    let status = "";
    child.on("exit", (code, signal) => {
      status = String(signal ?? code);
    });
    child.on("close", () => fail(`it exited (${status})`));
    child.on("error", (error) => fail(error.message));
  });
}

/** The held sandbox of one daemon's commands. */
export class HeldSandbox {
  readonly #options: HeldSandboxOptions;
  readonly #enter: string;
  #holder: Holder | undefined;
  #starting: Promise<void> | undefined;
  /** When the last start failed: the next is tried only RETRY_MS later. */
  #failedAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(options: HeldSandboxOptions) {
    this.#options = options;
    this.#enter = options.enter ?? ENTER_HELPER;
  }

  /** True where computerd-enter is built (else every command takes the fallback). */
  get available(): boolean {
    return existsSync(this.#enter);
  }

  /** True while the holder runs: commands enter it. */
  get holding(): boolean {
    return this.#holder !== undefined && !this.#holder.exited;
  }

  /** Starts the holder (again, after it died); resolves once commands can enter it. */
  start(): Promise<void> {
    if (this.#closed || this.#holder || !this.available || Date.now() - this.#failedAt < RETRY_MS)
      return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    const held = this.#options.holderPlan(["--info-fd", String(INFO_FD), "--", "/bin/sh", "-c", HOLD]);
    const plan = { ...held, env: { PATH: DEFAULT_PATH } };
    try {
      const spawner = await this.#options.spawner?.();
      if (this.#closed) return;
      // stdin: the pipe the holder's shell waits on (it ends when the daemon is gone).
      const child = spawner?.alive
        ? spawner.spawn(plan, true)
        : spawnDirect(plan, true, this.#options.sealedFds);
      const pid = await childPid(child, this.#options.startTimeoutMs ?? 15_000);
      const holder: Holder = { child, pid, inodes: namespaceInodes(pid), exited: false };
      child.stdout?.resume();
      child.stderr?.resume();
      child.on("exit", (code, signal) => {
        holder.exited = true;
        if (this.#holder === holder) this.#holder = undefined;
        if (!this.#closed) this.#options.log?.(`the held sandbox exited (${signal ?? code})`);
      });
      if (this.#closed) child.signalGroup("SIGKILL");
      else {
        this.#holder = holder;
        // The first command finds its sandbox set up too (as every later one does).
        if (spawner?.alive) spawner.warm(this.#enterArgv(holder, "/", "true"));
      }
    } catch (error) {
      this.#failedAt = Date.now();
      this.#options.log?.(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * The wrapper of the daemon's commands: into the held sandbox while its holder runs, through
   * `fallback` otherwise (a terminal's shell always: it keeps its pseudo-terminal's session).
   */
  wrapper(): CommandWrapper {
    return (input) => {
      const holder = this.#holder;
      if (input.terminal || holder === undefined || holder.exited) {
        if (holder === undefined) void this.start();
        return this.#options.fallback(input);
      }
      return {
        argv: this.#enterArgv(holder, input.cwd, input.command),
        env: { HOME: this.#options.home, ...input.env },
      };
    };
  }

  /**
   * computerd-enter's call for `command` in `cwd`: it enters the cwd (absolute: exec-spec.ts
   * resolves it) itself, so no shell runs just to `cd` (one exec fewer).
   */
  #enterArgv(holder: Holder, cwd: string, command: string): [string, ...string[]] {
    return [this.#enter, String(holder.pid), holder.inodes, "--cwd", cwd, "--", "/bin/sh", "-c", command];
  }

  /** Stops the holder (commands running in the sandbox keep their namespaces until they end). */
  close(): void {
    this.#closed = true;
    this.#holder?.child.signalGroup("SIGKILL");
    this.#holder = undefined;
  }
}
