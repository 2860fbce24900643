/**
 * One network namespace for all sandboxed commands of a daemon, with only a loopback: a server
 * one command starts is reachable from the next command (`curl localhost:3000`) and from
 * outside through previews, never from the host's network. The namespace is held by the port
 * bridge (port-bridge.ts), started in it by bubblewrap (or, for commands that run without a
 * sandbox, as in the production container, by `unshare --net`); commands join it with `nsenter`
 * before their own bubblewrap (which then shares the network it starts in), and the daemon
 * opens connections to ports in it through the bridge. Under an allow-list the bridge also
 * relays 127.0.0.1:3128 to the daemon's egress proxy: the namespace's one way out.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import type { Socket } from "node:net";
import { dirname } from "node:path";
import { helperEnv } from "./helper-env.ts";
import type { PortConnector } from "./loopback.ts";
import type { BridgeReady, BridgeReply } from "./port-bridge.ts";
import { unshareNetArgv } from "./unshare-net.ts";
import type { CommandWrapper } from "./wrapper.ts";

/** How the namespace is made. */
export interface SandboxNetworkOptions {
  /** The bwrap binary (default `bwrap`). */
  bwrap?: string;
  /** The nsenter binary (default `nsenter`). */
  nsenter?: string;
  /**
   * What makes the namespace: `bwrap` (default; commands run in bubblewrap) or `unshare`
   * (unshare-net.ts; commands run without a sandbox, the bridge sees the daemon's filesystem).
   */
  isolation?: "bwrap" | "unshare";
  /** The daemon's egress proxy socket: the bridge relays 127.0.0.1:3128 to it (egress-relay.ts). */
  egressSocket?: string;
  /** How long the bridge may take to start. */
  startTimeoutMs?: number;
  log?: (message: string) => void;
}

/** How long the bridge may take to answer one connect. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Folders of the host the bridge needs to run node: the system's, read-only. */
function systemBinds(): string[] {
  const args: string[] = [];
  for (const name of ["usr", "bin", "lib", "lib64", "sbin"]) {
    const path = `/${name}`;
    if (!existsSync(path)) continue;
    if (lstatSync(path).isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
    else args.push("--ro-bind", path, path);
  }
  return args;
}

/** The command starting the bridge in a fresh network namespace. */
function bridgeArgv(options: SandboxNetworkOptions): [string, ...string[]] {
  const node = realpathSync(process.execPath);
  const script = realpathSync(new URL("./port-bridge.ts", import.meta.url).pathname);
  const relay = options.egressSocket === undefined ? [] : [options.egressSocket];
  if (options.isolation === "unshare") return unshareNetArgv([node, script, ...relay]);
  // The package folder: the script, its sibling modules and the package.json naming them ESM.
  const pkg = dirname(dirname(dirname(script)));
  const socket = relay.flatMap((path) => ["--bind", path, path]);
  // Node's compile cache (helper-env.ts), which the bridge reads and adds to.
  const cache = helperEnv().NODE_COMPILE_CACHE;
  const compileCache = cache !== undefined && existsSync(cache) ? ["--bind", cache, cache] : [];
  return [
    options.bwrap ?? "bwrap",
    "--unshare-net",
    "--die-with-parent",
    ...systemBinds(),
    "--ro-bind",
    node,
    node,
    "--ro-bind",
    pkg,
    pkg,
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    ...socket,
    ...compileCache,
    "--",
    node,
    script,
    ...relay,
  ];
}

/** The namespace of one daemon and the bridge holding it. */
export class SandboxNetwork implements PortConnector {
  readonly #child: ChildProcess;
  readonly #pid: number;
  readonly #nsenter: string;
  readonly #pending = new Map<
    number,
    { resolve: (socket: Socket) => void; reject: (error: Error) => void }
  >();
  #closed = false;
  #nextId = 1;

  private constructor(child: ChildProcess, pid: number, options: SandboxNetworkOptions) {
    this.#child = child;
    this.#pid = pid;
    this.#nsenter = options.nsenter ?? "nsenter";
    child.on("message", (message: BridgeReply, handle?: Socket) => this.#reply(message, handle));
    child.once("exit", (code, signal) => {
      options.log?.(`the sandbox network's bridge exited (${signal ?? code})`);
      for (const waiter of this.#pending.values()) waiter.reject(bridgeGone());
      this.#pending.clear();
    });
  }

  /** Starts the bridge in a fresh network namespace; resolves once it is ready. */
  static start(options: SandboxNetworkOptions = {}): Promise<SandboxNetwork> {
    const [file, ...args] = bridgeArgv(options);
    const child = spawn(file, args, {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: helperEnv(),
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the sandbox network's bridge did not start: ${stderr}`));
      }, options.startTimeoutMs ?? 15_000);
      child.once("message", (message: BridgeReady) => {
        clearTimeout(timer);
        resolve(new SandboxNetwork(child, message.pid, options));
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

  /** The namespace as a path (`/proc/<bridge pid>/ns/net`). */
  get path(): string {
    return `/proc/${this.#pid}/ns/net`;
  }

  /**
   * Runs what `inner` spawns inside the namespace: `nsenter` joins it (as root, then becomes
   * the plan's user; a daemon that is not root joins the bridge's user namespace too, which
   * owns the network one), then execs the plan. `inner` must not unshare the network itself.
   */
  wrap(inner: CommandWrapper): CommandWrapper {
    return (input) => {
      const plan = inner(input);
      const pid = this.#pid;
      const join =
        process.getuid?.() === 0
          ? [`--net=/proc/${pid}/ns/net`]
          : [`--user=/proc/${pid}/ns/user`, `--net=/proc/${pid}/ns/net`, "--preserve-credentials"];
      const become = [
        ...(plan.uid === undefined ? [] : ["--setuid", String(plan.uid)]),
        ...(plan.gid === undefined ? [] : ["--setgid", String(plan.gid)]),
      ];
      return { argv: [this.#nsenter, ...join, ...become, "--", ...plan.argv], env: plan.env };
    };
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

  /** Stops the bridge (commands still running keep the namespace alive until they end). */
  close(): void {
    // Gone from now on: the killed bridge's exit (and its IPC channel's end) arrive later.
    this.#closed = true;
    this.#child.kill("SIGKILL");
  }
}

function bridgeGone(): Error {
  return Object.assign(new Error("the sandbox network's bridge is gone"), { code: "EUNAVAILABLE" });
}
