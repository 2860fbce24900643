/**
 * computerd's side of its spawner (native/spawner.c, `computerd-spawner`): started once, it
 * forks each command for computerd, whose own fork would copy the page tables of all its memory
 * (5 ms and more per command here; a bare Node's fork costs as much). The runner treats what it
 * spawned like a child of its own: the pid is the command's, signals go to its process group
 * from here, and the pipes are the command's own, opened through the spawner's /proc/PID/fd
 * (the same pipes, not copies) before the spawner lets go of its ends. Until the spawner is up
 * (or after it died) the runner spawns directly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { constants, openSync } from "node:fs";
import { Socket } from "node:net";
import { constants as os } from "node:os";
import { createInterface, type Interface } from "node:readline";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { getSystemErrorName } from "node:util";
import { type CommandProcess, sealedStdio } from "./command-process.ts";
import type { SpawnPlan } from "./wrapper.ts";

/** The spawner program (native/spawner.c, built by build:native). */
export const SPAWNER_HELPER = fileURLToPath(
  new URL("../../native/build/Release/computerd-spawner", import.meta.url),
);

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** The name of signal number `n` (SIGKILL for 9). */
function signalName(n: number): NodeJS.Signals | null {
  const found = Object.entries(os.signals).find(([, number]) => number === n);
  return (found?.[0] as NodeJS.Signals | undefined) ?? null;
}

/** The command's pipes, opened here. */
interface Pipes {
  stdout: Socket;
  stderr: Socket;
  stdin: Socket | undefined;
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

  /** It runs as `pid`, writing to `pipes` (undefined: they could not be opened; it is killed). */
  started(pid: number, pipes: Pipes | undefined): void {
    this.pid = pid;
    for (const signal of this.#early.splice(0)) signalGroup(pid, signal);
    this.emit("spawn");
    if (!pipes) {
      signalGroup(pid, "SIGKILL");
      this.stdout.destroy();
      this.stderr.destroy();
      this.stdin?.destroy();
      return;
    }
    for (const stream of ["stdout", "stderr"] as const) {
      const socket = pipes[stream];
      socket.on("error", () => undefined);
      const local = this[stream];
      socket.pipe(local);
      local.once("close", () => socket.destroy());
    }
    if (pipes.stdin) {
      // EPIPE and resets of a command that exits without reading: not the runner's concern.
      pipes.stdin.on("error", () => undefined);
      this.stdin?.pipe(pipes.stdin);
    }
  }

  /** Nothing runs: the spawn failed. */
  failed(message: string): void {
    this.emit("error", new Error(message));
    this.stdout.destroy();
    this.stderr.destroy();
    this.stdin?.destroy();
  }

  /** The spawner died: what it started is killed, and ends as killed. */
  lost(): void {
    if (this.#exited) return;
    if (this.pid === undefined) {
      this.failed("the spawner exited");
      return;
    }
    signalGroup(this.pid, "SIGKILL");
    this.exited(null, "SIGKILL");
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
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

/** One request as the spawner reads it: its length, then NUL-terminated fields. */
export function spawnerFrame(fields: readonly string[]): Buffer {
  const body = Buffer.from(fields.map((field) => `${field}\0`).join(""));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length);
  return Buffer.concat([head, body]);
}

/** The `spawn` request of `plan` (as Node's spawn, a NUL in an argument or variable throws). */
function spawnRequest(id: number, plan: SpawnPlan, stdin: boolean): Buffer {
  const env = Object.entries(plan.env)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${value}`);
  const strings = [...plan.argv, ...env];
  if (strings.some((s) => s.includes("\0"))) {
    throw new TypeError("the command's arguments and environment must not contain NUL bytes");
  }
  const owner = [
    plan.uid === undefined ? "" : String(plan.uid),
    plan.gid === undefined ? "" : String(plan.gid),
  ];
  return spawnerFrame([
    "spawn",
    String(id),
    stdin ? "1" : "0",
    ...owner,
    String(plan.argv.length),
    ...plan.argv,
    String(env.length),
    ...env,
  ]);
}

/** The running spawner. */
export class Spawner {
  readonly #child: ChildProcess;
  readonly #running = new Map<number, { process: SpawnedProcess; file: string }>();
  #nextId = 1;
  #alive = true;
  /** Commands it started, and of them those a warm entry took (native/spawner-warm.h). */
  readonly counters = { spawned: 0, warm: 0 };

  private constructor(child: ChildProcess, replies: Interface) {
    this.#child = child;
    replies.on("line", (line) => this.#reply(line));
    // Its stdin broke: it is gone, and its exit says so.
    child.stdin?.on("error", () => undefined);
    child.once("exit", () => {
      this.#alive = false;
      for (const { process } of this.#running.values()) process.lost();
      this.#running.clear();
    });
  }

  /**
   * Starts the spawner; resolves once it answers. `sealedFds` are the daemon's descriptors no
   * command may hold (the FUSE device): the spawner has /dev/null there, and so do its commands.
   */
  static start(sealedFds: readonly number[] = [], timeoutMs = 15_000): Promise<Spawner> {
    const child = spawn(SPAWNER_HELPER, [], {
      stdio: sealedStdio(["pipe", "pipe", "inherit"], sealedFds),
      env: {},
    });
    const replies = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`the spawner did not start: ${why}`));
      };
      const timer = setTimeout(() => fail("no answer in time"), timeoutMs);
      replies.once("line", (line) => {
        clearTimeout(timer);
        if (line.startsWith("ready ")) resolve(new Spawner(child, replies));
        else fail(`it said ${JSON.stringify(line)}`);
      });
      child.once("error", (error) => fail(error.message));
      child.once("exit", (code, signal) => fail(`it exited (${signal ?? code})`));
    });
  }

  /** True while it runs. */
  get alive(): boolean {
    return this.#alive && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Spawns `plan` (cwd `/`, a session and process group of its own), with a stdin pipe if asked. */
  spawn(plan: SpawnPlan, stdin: boolean): CommandProcess {
    const id = this.#nextId++;
    const request = spawnRequest(id, plan, stdin);
    const process = new SpawnedProcess(stdin);
    this.#running.set(id, { process, file: plan.argv[0] });
    this.#child.stdin?.write(request);
    return process;
  }

  /**
   * Has the spawner ready a warm entry in the held sandbox that `enterArgv` (a computerd-enter
   * call) enters, before its first command there (spawner.c, `warm`).
   */
  warm(enterArgv: readonly string[]): void {
    this.#send(["warm", String(enterArgv.length), ...enterArgv]);
  }

  /** Stops the spawner (commands that die with their parent go too). */
  close(): void {
    this.#alive = false;
    this.#child.kill("SIGKILL");
  }

  #reply(line: string): void {
    const [type, idText, ...rest] = line.split(" ");
    const id = Number(idText);
    const running = this.#running.get(id);
    if (!running) return;
    const numbers = rest.map(Number);
    if (type === "pid") {
      const [pid = 0, stdout = -1, stderr = -1, stdin = -1, warm = 0] = numbers;
      this.counters.spawned++;
      if (warm === 1) this.counters.warm++;
      let pipes: Pipes | undefined;
      try {
        pipes = {
          stdout: this.#pipe(stdout, constants.O_RDONLY),
          stderr: this.#pipe(stderr, constants.O_RDONLY),
          stdin: stdin >= 0 ? this.#pipe(stdin, constants.O_WRONLY) : undefined,
        };
      } catch (error) {
        // Nothing could read it: the command must not run unread (started kills it).
        console.error("computerd: the spawner's pipes could not be opened", error);
      }
      this.#send(["taken", String(id)]);
      running.process.started(pid, pipes);
    } else if (type === "exit") {
      const [code = -1, signal = 0] = numbers;
      this.#running.delete(id);
      running.process.exited(code >= 0 ? code : null, signal > 0 ? signalName(signal) : null);
    } else if (type === "error") {
      const [errno = 0] = numbers;
      this.#running.delete(id);
      running.process.failed(`spawn ${running.file} ${getSystemErrorName(-errno)}`);
    }
  }

  /** The spawner's descriptor `fd` opened here: the same pipe, a description of our own. */
  #pipe(fd: number, access: number): Socket {
    const opened = openSync(`/proc/${this.#child.pid}/fd/${fd}`, access | constants.O_NONBLOCK);
    const readable = access === constants.O_RDONLY;
    return new Socket({ fd: opened, readable, writable: !readable });
  }

  #send(fields: readonly string[]): void {
    this.#child.stdin?.write(spawnerFrame(fields));
  }
}

/**
 * The daemon's spawner: the one `prepared` (a spare's, started before it had any computer's
 * descriptors: spare.ts), or else one started now. `current()` until it is up (or if it
 * failed) is undefined: the daemon spawns directly then.
 */
export function laterSpawner(
  sealedFds: readonly number[] = [],
  prepared: Promise<Spawner | undefined> = Promise.resolve(undefined),
): {
  current: () => Spawner | undefined;
  /** Settles once the spawner is up (undefined: it could not start). */
  ready: () => Promise<Spawner | undefined>;
  close: () => Promise<void>;
} {
  let spawner: Spawner | undefined;
  let closed = false;
  const starting = prepared
    .then((ready) => (ready?.alive ? ready : Spawner.start(sealedFds)))
    .then(
      (started) => {
        if (closed) started.close();
        else spawner = started;
      },
      (err: unknown) =>
        console.error("computerd: the spawner did not start; commands are spawned directly", err),
    );
  return {
    current: () => spawner,
    ready: () => starting.then(() => spawner),
    async close() {
      closed = true;
      await starting;
      spawner?.close();
    },
  };
}
