/**
 * Assembles a running daemon from a Config: the exec and terminal tables (plain or bubblewrap-sandboxed),
 * the link manager serving DaemonApi, and the HTTP server. Used by `computerd serve` and tests.
 */
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Config } from "../config.ts";
import { bubblewrapWrapper, resolvConfTarget } from "../exec/bwrap.ts";
import { baseEnv, ROOTFS_HOME, SANDBOX_HOME, sandboxBaseEnv } from "../exec/env.ts";
import { DEFAULT_WATERMARKS } from "../exec/exec-log.ts";
import { ExecTable } from "../exec/exec-table.ts";
import { HeldSandbox } from "../exec/held-sandbox.ts";
import { ownLoopback } from "../exec/loopback.ts";
import { withoutEscapeCapabilities } from "../exec/namespace-guard.ts";
import {
  ensureHosts,
  type RootfsSandboxOptions,
  rootfsSandboxArgv,
  rootfsSandboxWrapper,
} from "../exec/rootfs-sandbox.ts";
import { laterSpawner, type Spawner } from "../exec/spawner.ts";
import { type CommandWrapper, plainShell } from "../exec/wrapper.ts";
import { usesRootfs } from "../sync/workspace.ts";
import { TerminalTable } from "../terminal/terminal-table.ts";
import { type CommandNetwork, OWN_NETWORK, startCommandNetwork } from "./command-network.ts";
import { type DaemonSync, DaemonTarget } from "./daemon-api.ts";
import { type Link, LinkManager } from "./dial-back-link.ts";
import { createComputerdServer } from "./server.ts";

/** computerd's version (from its package.json). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** Optional parts a fuller daemon plugs in. */
export interface DaemonParts {
  /** The sync engine's half of DaemonApi. */
  sync?: DaemonSync;
  /** The commands' spawner, started before (a spare's); without one the daemon starts its own. */
  spawner?: Promise<Spawner | undefined>;
  /** Called with each new link to the Durable Object. */
  onLink?: (link: Link) => void;
  /** Whether the workspace is mounted (for /health). */
  mounted?: () => boolean;
  /** The environment commands inherit their allowlisted variables from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Descriptors commands must not inherit (the FUSE device; see RunnerOptions.sealedFds). */
  sealedFds?: readonly number[];
  /** The commands' network, when the caller started it already (serve: beside the mount). */
  network?: Promise<CommandNetwork>;
}

/** A listening daemon. */
export interface Daemon {
  server: Server;
  table: ExecTable;
  terminals: TerminalTable;
  links: LinkManager;
  /** The port actually bound. */
  port: number;
  /** Kills running commands, drops the link, stops the server. */
  close(): Promise<void>;
}

/**
 * How commands (and terminals' shells) are spawned: in the bubblewrap sandbox (over the
 * image's root filesystem, or the host's system folders), or plainly. In a namespace of their
 * own (command-network.ts), commands join it first: a sandboxed one's bubblewrap then shares the
 * network it starts in (egress "all" to it), a plain one gives up what would let it leave.
 */
function commandWrapperFor(config: Config, net: CommandNetwork): CommandWrapper {
  const network = net.network;
  if (config.execSandbox !== "bwrap") {
    return network === undefined ? plainShell : network.wrap(withoutEscapeCapabilities(plainShell));
  }
  if (usesRootfs(config)) ensureHosts(config.sandboxRoot, config.sandboxUid);
  const sandbox = usesRootfs(config)
    ? rootfsSandboxWrapper(rootfsOptions(config, net))
    : bubblewrapWrapper({
        workspace: config.mountPoint,
        egress: network === undefined ? config.egress : "all",
        hostUid: config.sandboxUid,
        hide: [config.stateDir],
      });
  return network === undefined ? sandbox : network.wrap(sandbox);
}

/** The sandbox over the computer's root (in the command network, where there is one, egress "all" to it). */
function rootfsOptions(config: Config, net: CommandNetwork): RootfsSandboxOptions {
  return {
    root: config.sandboxRoot,
    workspace: config.mountPoint,
    egress: net.network === undefined ? config.egress : "all",
    idBase: config.sandboxUid,
  };
}

/**
 * Over the image's root filesystem, the held sandbox commands enter (held-sandbox.ts): the same
 * sandbox as commandWrapperFor's, started once. Undefined for the other sandboxes.
 */
function heldSandboxFor(
  config: Config,
  net: CommandNetwork,
  sealedFds: readonly number[],
  spawner: () => Promise<Spawner | undefined>,
): HeldSandbox | undefined {
  if (config.execSandbox !== "bwrap" || !usesRootfs(config)) return undefined;
  const bwrap = rootfsSandboxArgv(rootfsOptions(config, net), resolvConfTarget());
  const network = net.network;
  return new HeldSandbox({
    holderPlan: (tail) => {
      const holder: CommandWrapper = (input) => ({
        argv: [...bwrap, ...tail] as [string, ...string[]],
        env: input.env,
      });
      return (network === undefined ? holder : network.wrap(holder))({ command: "", cwd: "/", env: {} });
    },
    fallback: commandWrapperFor(config, net),
    home: ROOTFS_HOME,
    sealedFds,
    spawner,
    log: (message) => console.error(`computerd: ${message}`),
  });
}

/** The environment commands and terminals inherit from the daemon's own. */
function commandBaseEnv(
  config: Config,
  env: Record<string, string | undefined>,
  net: CommandNetwork,
): Record<string, string> {
  if (config.execSandbox !== "bwrap") return { ...baseEnv(env), ...net.env };
  return { ...sandboxBaseEnv(env, usesRootfs(config) ? ROOTFS_HOME : SANDBOX_HOME), ...net.env };
}

/** Where the workspace is as commands see it. */
function workingDirFor(config: Config): string {
  return config.execSandbox === "bwrap" ? "/workspace" : config.mountPoint;
}

/** The terminal table a config describes. */
export function terminalTableFor(
  config: Config,
  env: Record<string, string | undefined> = process.env,
  net: CommandNetwork = OWN_NETWORK,
): TerminalTable {
  return new TerminalTable({
    wrapper: commandWrapperFor(config, net),
    baseEnv: commandBaseEnv(config, env, net),
    defaultCwd: workingDirFor(config),
    killGraceMs: config.execKillGraceMs,
  });
}

/** The exec table a config describes. */
export function execTableFor(
  config: Config,
  env: Record<string, string | undefined> = process.env,
  sealedFds: readonly number[] = [],
  net: CommandNetwork = OWN_NETWORK,
  run: { spawner?: () => Spawner | undefined; held?: HeldSandbox } = {},
): ExecTable {
  return new ExecTable({
    ...(run.spawner ? { spawner: run.spawner } : {}),
    wrapper: run.held ? run.held.wrapper() : commandWrapperFor(config, net),
    baseEnv: commandBaseEnv(config, env, net),
    killGraceMs: config.execKillGraceMs,
    stdioGraceMs: 1000,
    sealedFds,
    watermarks: DEFAULT_WATERMARKS,
    retainFinished: config.execRetain,
    ...(config.execLogDir ? { logDir: config.execLogDir } : {}),
    defaults: {
      cwd: workingDirFor(config),
      timeoutMs: config.execTimeoutMs,
      maxTimeoutMs: config.execMaxTimeoutMs,
      outputCap: config.execOutputCap,
    },
  });
}

/**
 * Starts the daemon described by `config` and resolves once it listens. Commands get the
 * network command-network.ts picks (a namespace of their own, which previews reach through
 * its bridge, with the egress proxy under an allow-list), or the daemon's, whose loopback
 * previews reach.
 */
export async function startDaemon(config: Config, parts: DaemonParts = {}): Promise<Daemon> {
  const net = await (parts.network ?? startCommandNetwork(config));
  const network = net.network;
  // Commands are spawned by the spawner once it is up (spawner.ts: a small C program, up in a
  // few ms), by the daemon until then.
  const spawner = laterSpawner(parts.sealedFds, parts.spawner);
  // Over the image's root filesystem commands enter one held sandbox, started here.
  const held = heldSandboxFor(config, net, parts.sealedFds ?? [], spawner.ready);
  void held?.start();
  const table = execTableFor(config, parts.env, parts.sealedFds, net, {
    spawner: spawner.current,
    ...(held ? { held } : {}),
  });
  const terminals = terminalTableFor(config, parts.env, net);
  const links = new LinkManager({
    secret: config.secret,
    local: new DaemonTarget(table, parts.sync, terminals),
    ...(parts.onLink ? { onLink: parts.onLink } : {}),
  });
  const server = createComputerdServer({
    secret: config.secret,
    version: VERSION,
    table,
    links,
    ...(parts.mounted ? { mounted: parts.mounted } : {}),
    ports: network ?? ownLoopback,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    table,
    terminals,
    links,
    port,
    async close() {
      links.close();
      await Promise.all([table.shutdown(), terminals.shutdown()]);
      await spawner.close();
      held?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await net.close();
    },
  };
}
