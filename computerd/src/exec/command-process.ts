/**
 * A command's process as the runner drives it, however it was spawned: directly by the daemon
 * (a ChildProcess) or by the spawner (spawner.ts). Either way its stdio are the command's own
 * pipes, and signals go to its whole process group.
 */
import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { openSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import type { SpawnPlan } from "./wrapper.ts";

/** What the runner needs of a spawned command. */
export interface CommandProcess {
  /** Undefined until known (the spawner answers it), and for a spawn that failed. */
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  /** After the exit, once stdout and stderr are closed. */
  on(event: "close", listener: () => void): this;
  /** The process runs (its pid is known). */
  once(event: "spawn", listener: () => void): this;
  /** Sends `signal` to the command's process group (nothing when it is gone). */
  signalGroup(signal: NodeJS.Signals): void;
}

let devNullFd: number | undefined;

/** `stdio`, then /dev/null over every sealed descriptor (those the child must not inherit). */
export function sealedStdio(
  stdio: readonly ("pipe" | "ignore" | "inherit" | "ipc")[],
  sealedFds: readonly number[] = [],
): StdioOptions {
  const out: ("pipe" | "ignore" | "inherit" | "ipc" | number)[] = [...stdio];
  for (const fd of sealedFds) {
    if (fd < 3) continue;
    devNullFd ??= openSync("/dev/null", "r");
    while (out.length < fd) out.push("ignore");
    // A sealed descriptor where the IPC channel would go: the channel moves up one.
    if (out[fd] === "ipc") out.push("ipc");
    out[fd] = devNullFd;
  }
  return out;
}

/** The stdio of a command: stdin, stdout and stderr, then /dev/null over every sealed descriptor. */
export function commandStdio(stdin: "pipe" | "ignore", sealedFds: readonly number[] = []): StdioOptions {
  return sealedStdio([stdin, "pipe", "pipe"], sealedFds);
}

/** `child` as a CommandProcess. */
function direct(child: ChildProcess): CommandProcess {
  const process_ = child as ChildProcess & { signalGroup(signal: NodeJS.Signals): void };
  process_.signalGroup = (signal) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the group is gone already.
    }
  };
  return process_;
}

/**
 * Spawns `plan` from this process: cwd `/` (never a directory inside the FUSE mount: see
 * wrapper.ts), a process group of its own, the sealed descriptors as /dev/null. Throws what
 * spawn throws synchronously.
 */
export function spawnDirect(
  plan: SpawnPlan,
  stdin: boolean,
  sealedFds: readonly number[] = [],
): CommandProcess {
  const [file, ...args] = plan.argv;
  return direct(
    spawn(file, args, {
      cwd: "/",
      env: plan.env,
      detached: true,
      stdio: commandStdio(stdin ? "pipe" : "ignore", sealedFds),
      ...(plan.uid === undefined ? {} : { uid: plan.uid }),
      ...(plan.gid === undefined ? {} : { gid: plan.gid }),
    }),
  );
}
