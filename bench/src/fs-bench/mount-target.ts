/**
 * The computerd mount as a target: started by the bench in its own process group over a fresh
 * state directory and mount point (both removed at the end), stopped with SIGTERM (the daemon
 * flushes and unmounts), then SIGKILL and a lazy unmount if it does not go. Two ways to run it:
 * "driver" (default, mount-daemon.ts: the same code with a counters/fence channel) and "cli"
 * (`computerd mount` itself: no per-repetition counters, settle = a fixed pause).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { fuseMountsAt, lazyUnmount } from "computerd/mount/stale";
import type { FsTarget, MountCounters, Settled } from "./target.ts";

/** How the mount process is started. */
export type MountVia = "driver" | "cli";

const DRIVER = fileURLToPath(new URL("./mount-daemon.ts", import.meta.url));
const COMPUTERD_MAIN = fileURLToPath(new URL("../../../computerd/src/main.ts", import.meta.url));
const MOUNT_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 30_000;
/** Without a fence to call ("cli"), settling waits out the mount's 20 ms background flush and commit. */
const CLI_SETTLE_MS = 250;

type Event = { event: string } & Record<string, unknown>;

function isEvent(value: unknown): value is Event {
  return typeof value === "object" && value !== null && typeof (value as Event).event === "string";
}

function isCounters(event: Event): event is Event & MountCounters {
  return typeof event.fuse === "object" && typeof event.sql === "object";
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function bytesOf(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

/** Starts the mount under `parent` (a real disk, like computerd's state dir) and resolves once it serves. */
export async function startMountTarget(parent: string, via: MountVia): Promise<FsTarget> {
  const base = mkdtempSync(join(parent, "computer-fs-bench-mount-"));
  const stateDir = join(base, "state");
  const mountPoint = join(base, "mnt");
  const args =
    via === "driver"
      ? [DRIVER, "--state", stateDir, "--mount-point", mountPoint]
      : [COMPUTERD_MAIN, "mount", "--state", stateDir, "--mount-point", mountPoint];
  // cwd "/": never inside the mount the child is about to serve.
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: "/",
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const { pid, stdin, stdout, stderr } = child;
  if (pid === undefined || !stdin || !stdout || !stderr)
    throw new Error("could not start the computerd mount");
  const notes: Record<string, unknown> = { via, stateDir, mountPoint };
  // A write to a daemon that just died must not crash the bench; the exit is handled below.
  stdin.on("error", () => {});
  const lastResort = () => {
    signalGroup(pid, "SIGKILL");
    spawnSync("fusermount", ["-uz", mountPoint], { stdio: "ignore" });
  };
  process.once("exit", lastResort);

  const log: string[] = [];
  const waiting: ((event: Event) => void)[] = [];
  let mounted: (() => void) | undefined;
  let unmountedEvent: Event | undefined;
  createInterface({ input: stderr }).on("line", (line) => {
    log.push(`stderr: ${line}`);
    if (log.length > 100) log.shift();
  });
  createInterface({ input: stdout }).on("line", (line) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      event = undefined;
    }
    if (!isEvent(event)) {
      log.push(`stdout: ${line}`);
      return;
    }
    if (event.event === "mounted") mounted?.();
    else if (event.event === "unmounted") unmountedEvent = event;
    else waiting.shift()?.(event);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let exitedNow = false;
  void exited.then(() => {
    exitedNow = true;
    for (const resolve of waiting.splice(0)) resolve({ event: "exited" });
  });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stdin.end();
      signalGroup(pid, "SIGTERM");
      const grace = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
      await Promise.race([exited, grace]);
      if (!exitedNow) {
        signalGroup(pid, "SIGKILL");
        await exited;
      }
      if ((await fuseMountsAt(mountPoint)).length > 0) await lazyUnmount(mountPoint);
      process.removeListener("exit", lastResort);
      notes.mirrorBytes = bytesOf(join(stateDir, "mirror.sqlite"));
      notes.walBytes = bytesOf(join(stateDir, "mirror.sqlite-wal"));
      rmSync(base, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    await new Promise<void>((resolve, reject) => {
      mounted = resolve;
      const timer = setTimeout(
        () => reject(new Error("the mount did not come up in time")),
        MOUNT_TIMEOUT_MS,
      );
      timer.unref();
      void exited.then(() => reject(new Error("the mount process exited before mounting")));
    });
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${log.join("\n")}`);
  }

  const request = (line: string): Promise<Event> => {
    if (exitedNow) return Promise.reject(new Error(`the mount process is gone\n${log.join("\n")}`));
    return new Promise((resolve) => {
      waiting.push(resolve);
      stdin.write(`${line}\n`);
    });
  };
  const counters = async (
    line: "counters" | "fence",
  ): Promise<(MountCounters & { fenceMs?: number }) | undefined> => {
    if (via === "cli") return undefined;
    const event = await request(line);
    if (!isCounters(event))
      throw new Error(`mount: ${line} failed: ${JSON.stringify(event)}\n${log.join("\n")}`);
    const fenceMs = typeof event.fenceMs === "number" ? event.fenceMs : undefined;
    const storedBytes = typeof event.storedBytes === "number" ? event.storedBytes : undefined;
    const cpuMs = typeof event.cpuMs === "number" ? event.cpuMs : undefined;
    return {
      fuse: event.fuse,
      sql: event.sql,
      ...(storedBytes === undefined ? {} : { storedBytes }),
      ...(cpuMs === undefined ? {} : { cpuMs }),
      ...(fenceMs === undefined ? {} : { fenceMs }),
    };
  };

  return {
    id: "computerd",
    name: via === "driver" ? "computerd mount (bench driver: same code + counters)" : "computerd mount (CLI)",
    root: mountPoint,
    counters: () => counters("counters"),
    async settle(): Promise<Settled> {
      const started = performance.now();
      if (via === "cli") {
        await new Promise((resolve) => setTimeout(resolve, CLI_SETTLE_MS));
        return { ms: performance.now() - started };
      }
      const after = await counters("fence");
      const ms = after?.fenceMs ?? performance.now() - started;
      if (!after) return { ms };
      const { fenceMs: _, ...settled } = after;
      return { ms, counters: settled };
    },
    notes: () => ({ ...notes, ...(unmountedEvent ? { atExit: unmountedEvent } : {}), log: log.slice(-20) }),
    stop,
  };
}
