/**
 * The host's spare daemon: one `computerd serve --spare` (commands/spare.ts) started ahead of
 * need, so the next computer's daemon is a process that has already started Node, loaded
 * computerd and (sandboxed) its empty network namespace. It is started with the environment
 * every daemon gets minus anything of a computer (no secret, no spec variables, no folders),
 * handed to exactly one computer (`take`), and a new one is started for the next.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** How to start spares. */
export interface SpareOptions {
  /** `computerd` argv prefix (node + bin). */
  command: string[];
  /** The environment of every daemon (the host's, its compile cache, no tokens). */
  env: Record<string, string | undefined>;
  /** Pre-start the sandbox network's bridge (the host sandboxes with bubblewrap). */
  network: boolean;
  /** Lines the spare prints before it is taken (its failures). */
  log?: (line: string) => void;
}

/** A started spare process. */
export class SpareDaemon {
  readonly child: ChildProcess;
  /** Settles once it said it is ready; rejects if it exits first. */
  readonly started: Promise<void>;
  #ready = false;
  #taken = false;
  #resolveStarted: () => void = () => undefined;

  private constructor(child: ChildProcess) {
    this.child = child;
    this.started = new Promise<void>((resolve, reject) => {
      this.#resolveStarted = resolve;
      child.once("exit", () => reject(new Error("the spare exited before it was ready")));
    });
    this.started.catch(() => undefined);
  }

  /** Starts a spare; it is ready once it printed `{"event":"spare"}`. */
  static start(options: SpareOptions): SpareDaemon {
    const [node, ...rest] = options.command;
    if (node === undefined) throw new Error("no computerd command");
    const args = [...rest, "serve", "--spare", ...(options.network ? ["--network", "bwrap"] : [])];
    const child = spawn(node, args, { env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    const spare = new SpareDaemon(child);
    const out = child.stdout ? createInterface({ input: child.stdout }) : undefined;
    out?.on("line", (line) => {
      if (spare.#taken) return;
      if (line.includes('"event":"spare"')) {
        spare.#ready = true;
        spare.#resolveStarted();
      }
    });
    const err = child.stderr ? createInterface({ input: child.stderr }) : undefined;
    err?.on("line", (line) => {
      if (!spare.#taken) options.log?.(line);
    });
    child.once("exit", () => {
      out?.close();
      err?.close();
    });
    // A host that cannot start spares (no stdin) simply starts daemons afresh.
    child.stdin?.on("error", () => undefined);
    return spare;
  }

  /** True while it waits, ready (code loaded, network up), for a computer. */
  get ready(): boolean {
    return this.#ready && this.available;
  }

  /**
   * True while it runs untaken, ready or still starting: one taken while starting reads its
   * assignment once ready (the line waits in the pipe), so even the first computer after the
   * host started gains the part of the start already done.
   */
  get available(): boolean {
    return !this.#taken && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Hands the spare to one computer: it becomes `computerd serve ARGS` with `env` added. Its
   * stdout and stderr are the caller's from here on. With `rootLater`, it waits for a
   * `root-ready` line on stdin before it uses its `--sandbox-root`. Undefined once taken or gone.
   */
  take(args: readonly string[], env: Record<string, string>, rootLater = false): ChildProcess | undefined {
    if (!this.available) return undefined;
    this.#taken = true;
    this.child.stdin?.write(`${JSON.stringify({ args, env, ...(rootLater ? { rootLater } : {}) })}\n`);
    return this.child;
  }

  /** Ends an untaken spare. */
  stop(): void {
    if (!this.#taken) this.child.kill("SIGKILL");
  }
}
