/**
 * The daemon's side of the port bridge (port-bridge.ts): starts the bridge process with an IPC
 * channel, waits for its ready message, and asks it for sockets connected to ports on the
 * namespace's loopback (the socket comes back as the message's handle).
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { helperEnv } from "./helper-env.ts";
import type { BridgeReady, BridgeReply } from "./port-bridge.ts";

/** How long the bridge may take to answer one connect. */
const CONNECT_TIMEOUT_MS = 10_000;

/** A running port bridge. */
export class PortBridge {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (socket: Socket) => void; reject: (error: Error) => void }
  >();
  #closed = false;
  #nextId = 1;

  private constructor(child: ChildProcess, log?: (message: string) => void) {
    this.#child = child;
    child.on("message", (message: BridgeReply, handle?: Socket) => this.#reply(message, handle));
    child.once("exit", (code, signal) => {
      if (!this.#closed) log?.(`the sandbox network's bridge exited (${signal ?? code})`);
      for (const waiter of this.#pending.values()) waiter.reject(bridgeGone());
      this.#pending.clear();
    });
  }

  /** Starts `argv` (a command ending in port-bridge.ts); resolves once the bridge is ready. */
  static start(
    argv: readonly [string, ...string[]],
    options: { startTimeoutMs?: number; log?: (message: string) => void } = {},
  ): Promise<PortBridge> {
    const [file, ...args] = argv;
    const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe", "ipc"], env: helperEnv() });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the sandbox network's bridge did not start: ${stderr}`));
      }, options.startTimeoutMs ?? 15_000);
      child.once("message", (_message: BridgeReady) => {
        clearTimeout(timer);
        resolve(new PortBridge(child, options.log));
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the sandbox network's bridge exited (${code}): ${stderr}`));
      });
    });
  }

  /** A socket connected to `port` on the namespace's loopback (ECONNREFUSED when nothing listens). */
  connect(port: number): Promise<Socket> {
    if (
      this.#closed ||
      this.#child.exitCode !== null ||
      this.#child.signalCode !== null ||
      !this.#child.connected
    ) {
      return Promise.reject(bridgeGone());
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(Object.assign(new Error(`connect to port ${port} timed out`), { code: "ETIMEDOUT" }));
      }, CONNECT_TIMEOUT_MS);
      this.#pending.set(id, {
        resolve: (socket) => {
          clearTimeout(timer);
          resolve(socket);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#child.send({ id, port });
    });
  }

  #reply(message: BridgeReply, handle: Socket | undefined): void {
    const waiter = this.#pending.get(message.id);
    if (waiter === undefined) {
      handle?.destroy();
      return;
    }
    this.#pending.delete(message.id);
    if (message.ok && handle !== undefined) waiter.resolve(handle);
    else {
      const code = message.ok ? "EIO" : message.code;
      waiter.reject(Object.assign(new Error(`connect: ${code}`), { code }));
    }
  }

  /** Stops the bridge. */
  close(): void {
    // Gone from now on: the killed bridge's exit (and its IPC channel's end) arrive later.
    this.#closed = true;
    this.#child.kill("SIGKILL");
  }
}

/** What a connect answers once the bridge (or the namespace) is gone. */
export function bridgeGone(): Error {
  return Object.assign(new Error("the sandbox network's bridge is gone"), { code: "EUNAVAILABLE" });
}
