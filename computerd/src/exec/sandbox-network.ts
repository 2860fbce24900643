/**
 * One network namespace for all sandboxed commands of a daemon, with only a loopback: a server
 * one command starts is reachable from the next command (`curl localhost:3000`) and from
 * outside through previews, never from the host's network. The namespace is held by a holder
 * process (a shell that sets the namespace's lowest unprivileged port to 0, says its pid and
 * reads its stdin, the daemon's pipe, until the daemon is gone), started in it by bubblewrap
 * (or, for commands that run without a sandbox, as in the production container, by `unshare
 * --net`); commands join it with `nsenter` before their own bubblewrap (which then shares the
 * network it starts in). The daemon opens connections to ports in it through the port bridge
 * (port-bridge.ts), a Node process joined to it the same way, started by the first connect (a
 * preview): ~100 ms of CPU that a new computer's start (and every spare daemon's) no longer
 * pays. Under an allow-list the bridge starts with the namespace and relays 127.0.0.1:3128 to
 * the daemon's egress proxy: the namespace's one way out.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import type { Socket } from "node:net";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { helperEnv } from "./helper-env.ts";
import type { PortConnector } from "./loopback.ts";
import { bridgeGone, PortBridge } from "./port-bridge-client.ts";
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
  /** How long the holder (and the bridge) may take to start. */
  startTimeoutMs?: number;
  log?: (message: string) => void;
}

/**
 * The holder's script. Root of a computer's user namespace binds ports below 1024, as in a
 * container; this namespace is owned by the host's user namespace (or, with `unshare`, one of
 * its own), where it holds no such capability, so the namespace (the computer's alone) lets
 * every user bind them. Not root (a daemon that is not root): ports below 1024 stay privileged.
 * Then it waits on its stdin, which the daemon never writes: a daemon killed outright closes
 * it, and the holder ends too (bubblewrap's --die-with-parent covers only the bwrap way).
 */
const HOLDER_SCRIPT =
  "{ echo 0 > /proc/sys/net/ipv4/ip_unprivileged_port_start; } 2>/dev/null; echo $$; read _";

/** Folders of the host a helper needs to run: the system's, read-only. */
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

/** The command starting the holder in a fresh network namespace. */
function holderArgv(options: SandboxNetworkOptions): [string, ...string[]] {
  const holder = ["/bin/sh", "-c", HOLDER_SCRIPT];
  if (options.isolation === "unshare") return unshareNetArgv(holder);
  return [
    options.bwrap ?? "bwrap",
    "--unshare-net",
    "--die-with-parent",
    ...systemBinds(),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--",
    ...holder,
  ];
}

/**
 * nsenter's options joining the namespace of `pid`: as root, the network one alone; a daemon
 * that is not root joins the holder's user namespace too, which owns the network one.
 */
function joinArgs(pid: number): string[] {
  return process.getuid?.() === 0
    ? [`--net=/proc/${pid}/ns/net`]
    : [`--user=/proc/${pid}/ns/user`, `--net=/proc/${pid}/ns/net`, "--preserve-credentials"];
}

/** The command starting the bridge joined to the namespace of `pid` (with bwrap: in a sandbox of its own). */
function bridgeArgv(options: SandboxNetworkOptions, pid: number): [string, ...string[]] {
  const node = realpathSync(process.execPath);
  const script = realpathSync(new URL("./port-bridge.ts", import.meta.url).pathname);
  const relay = options.egressSocket === undefined ? [] : [options.egressSocket];
  const join = [options.nsenter ?? "nsenter", ...joinArgs(pid), "--"] as const;
  if (options.isolation === "unshare") return [...join, node, script, ...relay];
  // The package folder: the script, its sibling modules and the package.json naming them ESM.
  const pkg = dirname(dirname(dirname(script)));
  const socket = relay.flatMap((path) => ["--bind", path, path]);
  // Node's compile cache (helper-env.ts), which the bridge reads and adds to.
  const cache = helperEnv().NODE_COMPILE_CACHE;
  const compileCache = cache !== undefined && existsSync(cache) ? ["--bind", cache, cache] : [];
  return [
    ...join,
    options.bwrap ?? "bwrap",
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

/** Starts the holder; resolves with it and its pid once it said its pid. */
function startHolder(options: SandboxNetworkOptions): Promise<{ child: ChildProcess; pid: number }> {
  const [file, ...args] = holderArgv(options);
  const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"], env: helperEnv() });
  // Never written: it is the holder's lifeline (HOLDER_SCRIPT).
  child.stdin?.on("error", () => undefined);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  return new Promise((resolve, reject) => {
    const lines = child.stdout ? createInterface({ input: child.stdout }) : undefined;
    const fail = (error: Error) => {
      clearTimeout(timer);
      lines?.close();
      reject(error);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`the sandbox network did not start: ${stderr}`));
    }, options.startTimeoutMs ?? 15_000);
    lines?.once("line", (line) => {
      clearTimeout(timer);
      lines.close();
      // Nothing more comes: the holder only waits from here on.
      child.stdout?.destroy();
      const pid = Number(line);
      if (Number.isInteger(pid) && pid > 0) resolve({ child, pid });
      else {
        child.kill("SIGKILL");
        reject(new Error(`the sandbox network's holder said ${JSON.stringify(line)}: ${stderr}`));
      }
    });
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`the sandbox network's holder exited (${code}): ${stderr}`)));
  });
}

/** The namespace of one daemon, its holder and (once asked for) its bridge. */
export class SandboxNetwork implements PortConnector {
  readonly #holder: ChildProcess;
  readonly #pid: number;
  readonly #options: SandboxNetworkOptions;
  #bridge: Promise<PortBridge> | undefined;
  #closed = false;

  private constructor(holder: ChildProcess, pid: number, options: SandboxNetworkOptions) {
    this.#holder = holder;
    this.#pid = pid;
    this.#options = options;
    holder.once("exit", (code, signal) => {
      if (!this.#closed) options.log?.(`the sandbox network's holder exited (${signal ?? code})`);
    });
  }

  /**
   * Starts the holder in a fresh network namespace; resolves once it runs (with an egress relay,
   * once the bridge serves it too).
   */
  static async start(options: SandboxNetworkOptions = {}): Promise<SandboxNetwork> {
    const { child, pid } = await startHolder(options);
    const network = new SandboxNetwork(child, pid, options);
    if (options.egressSocket !== undefined) {
      try {
        await network.#startedBridge();
      } catch (error) {
        network.close();
        throw error;
      }
    }
    return network;
  }

  /** The namespace as a path (`/proc/<holder pid>/ns/net`). */
  get path(): string {
    return `/proc/${this.#pid}/ns/net`;
  }

  /** True once the bridge was asked for (a connect, or an egress relay). */
  get bridgeStarted(): boolean {
    return this.#bridge !== undefined;
  }

  /**
   * Runs what `inner` spawns inside the namespace: `nsenter` joins it (as root, then becomes
   * the plan's user; a daemon that is not root joins the holder's user namespace too, which
   * owns the network one), then execs the plan. `inner` must not unshare the network itself.
   */
  wrap(inner: CommandWrapper): CommandWrapper {
    return (input) => {
      const plan = inner(input);
      const become = [
        ...(plan.uid === undefined ? [] : ["--setuid", String(plan.uid)]),
        ...(plan.gid === undefined ? [] : ["--setgid", String(plan.gid)]),
      ];
      const nsenter = this.#options.nsenter ?? "nsenter";
      return { argv: [nsenter, ...joinArgs(this.#pid), ...become, "--", ...plan.argv], env: plan.env };
    };
  }

  /** A socket connected to `port` on the namespace's loopback (ECONNREFUSED when nothing listens). */
  async connect(port: number): Promise<Socket> {
    const bridge = await this.#startedBridge();
    return bridge.connect(port);
  }

  /** The bridge, started on the first call; a start that failed is tried again by the next. */
  #startedBridge(): Promise<PortBridge> {
    if (this.#closed || this.#holder.exitCode !== null || this.#holder.signalCode !== null) {
      return Promise.reject(bridgeGone());
    }
    if (this.#bridge === undefined) {
      const log = this.#options.log;
      const starting = PortBridge.start(bridgeArgv(this.#options, this.#pid), {
        ...(this.#options.startTimeoutMs === undefined
          ? {}
          : { startTimeoutMs: this.#options.startTimeoutMs }),
        ...(log === undefined ? {} : { log }),
      });
      this.#bridge = starting;
      starting.then(
        (bridge) => {
          // Closed while it started: it goes too.
          if (this.#closed) bridge.close();
        },
        () => {
          if (this.#bridge === starting) this.#bridge = undefined;
        },
      );
    }
    return this.#bridge;
  }

  /** Stops the holder and the bridge (commands still running keep the namespace alive until they end). */
  close(): void {
    // Gone from now on: the killed holder's exit arrives later.
    this.#closed = true;
    this.#holder.kill("SIGKILL");
    this.#bridge?.then(
      (bridge) => bridge.close(),
      () => undefined,
    );
  }
}
