/**
 * The daemon's terminals: each an interactive shell on a real pseudo-terminal (node-pty),
 * spawned through the same wrapper as commands (the bubblewrap sandbox under `computerd host`)
 * but keeping the pty as its controlling terminal, so job control, Ctrl-C and full-screen
 * programs work. Output goes to a TerminalSink with a window of unacknowledged bytes: a slow
 * link pauses the pty (the shell blocks on write) instead of piling up memory.
 */
import { constants } from "node:os";
import { FsError } from "@computer/vfs";
import type { TerminalSink } from "@computer/vfs/sync";
import nodePty from "@lydell/node-pty";
import { execEnv } from "../exec/env.ts";
import type { CommandWrapper } from "../exec/wrapper.ts";
import { checkSize, planTerminal } from "./terminal-spec.ts";

/** Output bytes sent to a sink and not yet acknowledged before the pty is paused. */
export const TERMINAL_WINDOW_BYTES = 256 * 1024;

/**
 * What the shell of a terminal runs: bash when the system has it (line editing, job control),
 * else sh. `-i` without `-l`: the system's and the user's rc files, no login banner.
 */
export const TERMINAL_SHELL = "if command -v bash >/dev/null 2>&1; then exec bash -i; else exec sh -i; fi";

/** Everything the table needs to start terminals. */
export interface TerminalTableOptions {
  wrapper: CommandWrapper;
  baseEnv: Record<string, string>;
  /** Directory a terminal starts in when none is given; relative cwds resolve against it. */
  defaultCwd: string;
  /** Time between SIGHUP and SIGKILL when a terminal is closed. */
  killGraceMs: number;
}

interface Disposable {
  dup?: () => unknown;
  [Symbol.dispose]?: () => void;
}

/** A sink that outlives the RPC call it arrived in (capnweb disposes parameter stubs). */
function retain(sink: TerminalSink): TerminalSink {
  const stub = sink as TerminalSink & Disposable;
  return typeof stub.dup === "function" ? (stub.dup() as TerminalSink) : sink;
}

function release(sink: TerminalSink): void {
  (sink as TerminalSink & Disposable)[Symbol.dispose]?.();
}

/** One running terminal. */
class Terminal {
  readonly id: string;
  readonly pty: nodePty.IPty;
  readonly #sink: TerminalSink;
  readonly #decoder = new TextDecoder();
  #inFlight = 0;
  #paused = false;
  #sending: Promise<void> = Promise.resolve();
  #killTimer: ReturnType<typeof setTimeout> | undefined;
  /** Settles once the shell has exited and `closed` was sent. */
  readonly done: Promise<void>;

  constructor(id: string, pty: nodePty.IPty, sink: TerminalSink) {
    this.id = id;
    this.pty = pty;
    this.#sink = sink;
    pty.onData((chunk: string | Buffer) =>
      this.#output(typeof chunk === "string" ? Buffer.from(chunk) : chunk),
    );
    this.done = new Promise((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        clearTimeout(this.#killTimer);
        // Output still queued goes first; then the end, then the sink is let go.
        this.#sending = this.#sending.then(async () => {
          try {
            const signalName = signal ? signalNameOf(signal) : undefined;
            await this.#sink.closed(id, signal ? null : exitCode, signalName);
          } catch {
            // The link is gone; the DO notices it by itself.
          }
          release(this.#sink);
        });
        void this.#sending.then(resolve);
      });
    });
  }

  #output(bytes: Buffer): void {
    this.#inFlight += bytes.byteLength;
    if (this.#inFlight > TERMINAL_WINDOW_BYTES && !this.#paused) {
      this.#paused = true;
      this.pty.pause();
    }
    const data = new Uint8Array(bytes);
    this.#sending = this.#sending.then(async () => {
      try {
        await this.#sink.output(this.id, data);
      } catch {
        // A dropped link loses this output; the DO's scrollback has what came before.
      }
      this.#inFlight -= data.byteLength;
      if (this.#paused && this.#inFlight <= TERMINAL_WINDOW_BYTES / 2) {
        this.#paused = false;
        this.pty.resume();
      }
    });
  }

  write(data: Uint8Array): void {
    this.pty.write(this.#decoder.decode(data, { stream: true }));
  }

  /** SIGHUP (what closing a terminal window sends), then SIGKILL after `graceMs`. */
  close(graceMs: number): void {
    try {
      process.kill(-this.pty.pid, "SIGHUP");
    } catch {
      this.pty.kill("SIGHUP");
    }
    this.#killTimer ??= setTimeout(() => {
      try {
        process.kill(-this.pty.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, graceMs);
    this.#killTimer.unref?.();
  }
}

function signalNameOf(signal: number): string {
  const name = Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
  return name ?? String(signal);
}

/** The terminals of one daemon. */
export class TerminalTable {
  readonly #options: TerminalTableOptions;
  readonly #terminals = new Map<string, Terminal>();

  constructor(options: TerminalTableOptions) {
    this.#options = options;
  }

  /**
   * Checks `spec` (untrusted) and starts its shell; output and the end go to `sink`. Throws
   * FsError EINVAL for a bad request, EEXIST for an id in use; an Error when no pty starts.
   */
  open(spec: unknown, sink: TerminalSink): { pid: number } {
    const plan = planTerminal(spec, this.#options.defaultCwd);
    if (this.#terminals.has(plan.id))
      throw new FsError("EEXIST", "terminal", undefined, `terminal ${plan.id} exists`);
    const env = { TERM: "xterm-256color", ...execEnv(this.#options.baseEnv, plan.env, plan.cwd) };
    const spawnPlan = this.#options.wrapper({ command: TERMINAL_SHELL, cwd: plan.cwd, env, terminal: true });
    const [file, ...args] = spawnPlan.argv;
    let pty: nodePty.IPty;
    try {
      pty = nodePty.spawn(file, args, {
        name: spawnPlan.env.TERM ?? "xterm-256color",
        cols: plan.cols,
        rows: plan.rows,
        // Never a directory inside the FUSE mount (see wrapper.ts): the shell cds there itself.
        cwd: "/",
        env: spawnPlan.env,
        encoding: null,
        ...(spawnPlan.uid === undefined ? {} : { uid: spawnPlan.uid }),
        ...(spawnPlan.gid === undefined ? {} : { gid: spawnPlan.gid }),
      });
    } catch (err) {
      throw new Error(`cannot start a pseudo-terminal: ${String(err)}`);
    }
    const terminal = new Terminal(plan.id, pty, retain(sink));
    this.#terminals.set(plan.id, terminal);
    void terminal.done.then(() => this.#terminals.delete(plan.id));
    return { pid: pty.pid };
  }

  /** Sends keyboard input. False when unknown. */
  write(id: string, data: Uint8Array): boolean {
    const terminal = this.#terminals.get(id);
    terminal?.write(data);
    return terminal !== undefined;
  }

  /** Changes the size (the shell gets SIGWINCH). False when unknown; EINVAL for a bad size. */
  resize(id: string, cols: unknown, rows: unknown): boolean {
    const size = checkSize(cols, rows);
    const terminal = this.#terminals.get(id);
    terminal?.pty.resize(size.cols, size.rows);
    return terminal !== undefined;
  }

  /** Ends a terminal (SIGHUP, then SIGKILL). False when unknown. */
  close(id: string): boolean {
    const terminal = this.#terminals.get(id);
    terminal?.close(this.#options.killGraceMs);
    return terminal !== undefined;
  }

  /** How many terminals are open (the uploader runs while any is). */
  count(): number {
    return this.#terminals.size;
  }

  /** Closes every terminal and waits for their ends (daemon shutdown). */
  async shutdown(): Promise<void> {
    const open = [...this.#terminals.values()];
    for (const terminal of open) terminal.close(this.#options.killGraceMs);
    await Promise.all(open.map((terminal) => terminal.done));
  }
}
