/**
 * computerd's side of the spawner (spawner-process.ts): starts it once, sends it each command's
 * spawn plan and turns its answers into a CommandProcess the runner treats like a child of its
 * own: the pipes are the command's own (handed over the channel), the pid is the command's, and
 * signals go to its process group from here. Until the spawner is up (or after it died) the
 * runner spawns directly.
 */
import { type ChildProcess, fork, type StdioOptions } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { type CommandProcess, sealedStdio } from "./command-process.ts";
import { helperEnv } from "./helper-env.ts";
import type { SpawnReply, SpawnRequest } from "./spawner-process.ts";
import type { SpawnPlan } from "./wrapper.ts";

const SCRIPT = new URL("./spawner-process.ts", import.meta.url).pathname;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** A command the spawner started, as the runner sees it. */
class SpawnedProcess extends EventEmitter implements CommandProcess {
  pid: number | undefined;
  readonly stdin: PassThrough | null;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  /** Signals asked for before the pid was known. */
  readonly #early: NodeJS.Signals[] = [];
  #exited = false;
  #open = 2;
  #closed = false;

  constructor(stdin: boolean) {
    super();
    this.stdin = stdin ? new PassThrough() : null;
    for (const stream of [this.stdout, this.stderr]) {
      stream.once("close", () => {
        this.#open--;
        this.#maybeClose();
      });
    }
  }

  signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) this.#early.push(signal);
    else signalGroup(this.pid, signal);
  }

  receive(reply: SpawnReply, handle: Socket | undefined): void {
    switch (reply.type) {
      case "pid":
        this.pid = reply.pid;
        for (const signal of this.#early.splice(0)) signalGroup(reply.pid, signal);
        this.emit("spawn");
        return;
      case "pipe":
        if (handle) this.#attach(reply.stream, handle);
        return;
      case "exit":
        this.#exit(reply.code, reply.signal);
        return;
      case "error":
        this.emit("error", new Error(reply.message));
        this.stdout.destroy();
        this.stderr.destroy();
        this.stdin?.destroy();
        return;
    }
  }

  /** The spawner died: what it started is killed, and ends as killed. */
  lost(): void {
    if (this.#exited) return;
    if (this.pid === undefined) {
      this.receive({ id: 0, type: "error", message: "the spawner exited" }, undefined);
      return;
    }
    signalGroup(this.pid, "SIGKILL");
    this.#exit(null, "SIGKILL");
  }

  #attach(stream: "stdin" | "stdout" | "stderr", socket: Socket): void {
    // EPIPE and resets of a command that exits without reading: not the runner's concern.
    socket.on("error", () => undefined);
    if (stream === "stdin") {
      this.stdin?.pipe(socket);
      return;
    }
    const local = this[stream];
    socket.pipe(local);
    local.once("close", () => socket.destroy());
  }

  #exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#exited) return;
    this.#exited = true;
    this.emit("exit", code, signal);
    this.#maybeClose();
  }

  #maybeClose(): void {
    if (this.#closed || !this.#exited || this.#open > 0) return;
    this.#closed = true;
    this.emit("close");
  }
}

/** The running spawner. */
export class Spawner {
  readonly #child: ChildProcess;
  readonly #running = new Map<number, SpawnedProcess>();
  #nextId = 1;
  #alive = true;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on("message", (reply: SpawnReply, handle?: Socket) => {
      const process = this.#running.get(reply.id);
      if (!process) {
        handle?.destroy();
        return;
      }
      process.receive(reply, handle);
      if (reply.type === "exit" || reply.type === "error") this.#running.delete(reply.id);
    });
    child.once("exit", () => {
      this.#alive = false;
      for (const process of this.#running.values()) process.lost();
      this.#running.clear();
    });
  }

  /**
   * Starts the spawner; resolves once it answers. `sealedFds` are the daemon's descriptors no
   * command may hold (the FUSE device): the spawner has /dev/null there, and so do its commands.
   */
  static start(sealedFds: readonly number[] = [], timeoutMs = 15_000): Promise<Spawner> {
    const stdio: StdioOptions = sealedStdio(["ignore", "ignore", "inherit", "ipc"], sealedFds);
    const child = fork(SCRIPT, [], {
      stdio,
      execArgv: [],
      env: helperEnv(),
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error("the spawner did not start"));
      }, timeoutMs);
      child.once("message", () => {
        clearTimeout(timer);
        resolve(new Spawner(child));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the spawner exited (${signal ?? code})`));
      });
    });
  }

  /** True while it runs and its channel is open. */
  get alive(): boolean {
    return this.#alive && this.#child.connected;
  }

  /** Spawns `plan` (cwd `/`, a process group of its own), with a stdin pipe if asked. */
  spawn(plan: SpawnPlan, stdin: boolean): CommandProcess {
    const process = new SpawnedProcess(stdin);
    const id = this.#nextId++;
    const request: SpawnRequest = { id, argv: plan.argv, env: plan.env, stdin };
    if (plan.uid !== undefined) request.uid = plan.uid;
    if (plan.gid !== undefined) request.gid = plan.gid;
    this.#running.set(id, process);
    try {
      this.#child.send(request);
    } catch {
      this.#running.delete(id);
      queueMicrotask(() => process.lost());
    }
    return process;
  }

  /** Stops the spawner (commands that die with their parent go too). */
  close(): void {
    this.#alive = false;
    this.#child.kill("SIGKILL");
  }
}

/** A spawner started `delayMs` from now: `current()` until then (or if it failed) is undefined. */
export function laterSpawner(
  sealedFds: readonly number[] = [],
  delayMs = 0,
): { current: () => Spawner | undefined; close: () => Promise<void> } {
  let spawner: Spawner | undefined;
  let closed = false;
  let starting: Promise<void> = Promise.resolve();
  const timer = setTimeout(() => {
    starting = Spawner.start(sealedFds).then(
      (started) => {
        if (closed) started.close();
        else spawner = started;
      },
      (err: unknown) =>
        console.error("computerd: the spawner did not start; commands are spawned directly", err),
    );
  }, delayMs);
  return {
    current: () => spawner,
    async close() {
      closed = true;
      clearTimeout(timer);
      await starting;
      spawner?.close();
    },
  };
}
