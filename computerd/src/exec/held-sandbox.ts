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
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sealedStdio } from "./command-process.ts";
import { DEFAULT_PATH } from "./env.ts";
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

/** The descriptor bubblewrap writes its child's pid to (`--info-fd`). */
const INFO_FD = 3;

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
  enter?: string;
  log?: (message: string) => void;
  startTimeoutMs?: number;
}

/** One running holder: bubblewrap's child pid and its namespaces' inodes, as computerd-enter checks them. */
interface Holder {
  child: ChildProcess;
  pid: number;
  inodes: string;
}

/** The inodes of `pid`'s namespaces in computerd-enter's notation (`net:N,user:N,...`). */
function namespaceInodes(pid: number): string {
  return JOINED.map((name) => `${name}:${statSync(`/proc/${pid}/ns/${name}`).ino}`).join(",");
}

/** Bubblewrap's `{"child-pid": N}` from the info pipe, once the holder said it runs. */
function childPid(child: ChildProcess, timeoutMs: number): Promise<number> {
  const info = child.stdio[INFO_FD];
  return new Promise((resolve, reject) => {
    let text = "";
    let said = "";
    let pid: number | undefined;
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`the held sandbox did not start: ${why} ${stderr}`.trim()));
    };
    const timer = setTimeout(() => fail("no child pid in time"), timeoutMs);
    const ready = () => {
      if (pid === undefined || !said.includes("held\n")) return;
      clearTimeout(timer);
      resolve(pid);
    };
    info?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match) pid = Number(match[1]);
      ready();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      ready();
    });
    child.once("exit", (code, signal) => fail(`it exited (${signal ?? code})`));
    child.once("error", (error) => fail(error.message));
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
    return this.#holder !== undefined && this.#holder.child.exitCode === null;
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
    const plan = this.#options.holderPlan(["--info-fd", String(INFO_FD), "--", "/bin/sh", "-c", HOLD]);
    const [file, ...args] = plan.argv;
    const child = spawn(file, args, {
      cwd: "/",
      env: { PATH: DEFAULT_PATH },
      stdio: sealedStdio(["pipe", "pipe", "pipe", "pipe"], this.#options.sealedFds),
    });
    try {
      const pid = await childPid(child, this.#options.startTimeoutMs ?? 15_000);
      const holder = { child, pid, inodes: namespaceInodes(pid) };
      child.stdio[INFO_FD]?.destroy();
      child.stdout?.resume();
      child.stderr?.resume();
      child.once("exit", (code, signal) => {
        if (this.#holder === holder) this.#holder = undefined;
        if (!this.#closed) this.#options.log?.(`the held sandbox exited (${signal ?? code})`);
      });
      if (this.#closed) child.kill("SIGKILL");
      else this.#holder = holder;
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
      if (input.terminal || holder === undefined || holder.child.exitCode !== null) {
        if (holder === undefined) void this.start();
        return this.#options.fallback(input);
      }
      // computerd-enter enters the cwd (absolute: exec-spec.ts resolves it) itself: no shell just
      // to `cd` (one exec fewer).
      return {
        argv: [
          this.#enter,
          String(holder.pid),
          holder.inodes,
          "--cwd",
          input.cwd,
          "--",
          "/bin/sh",
          "-c",
          input.command,
        ],
        env: { HOME: this.#options.home, ...input.env },
      };
    };
  }

  /** Stops the holder (commands running in the sandbox keep their namespaces until they end). */
  close(): void {
    this.#closed = true;
    this.#holder?.child.kill("SIGKILL");
    this.#holder = undefined;
  }
}
