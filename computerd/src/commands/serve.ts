/**
 * `computerd serve [options]`: the daemon. Opens the mirror in STATE_DIR, mounts it at
 * MOUNT_POINT (a stale mount is cleared first), serves exec, health and connect over HTTP and
 * DaemonApi (with the sync engine) over the dial-back link, until SIGTERM/SIGINT/SIGHUP: then
 * commands are killed, the mount is flushed, a last upload is tried, the mount is removed and
 * the process exits 0. Options: `computerd serve --help` (src/config.ts). Prints one JSON line
 * per event on stdout ({"event":"listening",...}, {"event":"fence",...}, {"event":"stopped",...});
 * a fence event carries the workspace's counters so far (FUSE requests by type, the mirror's
 * SQL, round trips to the DO and their bytes: workspaceCounters).
 */
import { ConfigError, parseConfig } from "../config.ts";
import type { Command } from "../main.ts";
import { fuseDeviceFds } from "../mount/fuse-device.ts";
import { startCommandNetwork } from "../server/command-network.ts";
import { type Daemon, startDaemon, VERSION } from "../server/daemon.ts";
import type { FenceStats } from "../sync/mirror-sync.ts";
import { openWorkspace, type Workspace, workspaceCounters } from "../sync/workspace.ts";
import { type SparePrepared, waitAsSpare } from "./spare.ts";

/** How long shutdown waits for the last upload to the Durable Object. */
const FINAL_UPLOAD_MS = 2000;

function log(message: string, err?: unknown): void {
  console.error(`computerd: ${message}`, ...(err === undefined ? [] : [err]));
}

async function run(args: string[], prepared: SparePrepared = {}): Promise<number> {
  let parsed: ReturnType<typeof parseConfig>;
  try {
    // Takes the secret out of process.env before anything else can copy the environment.
    parsed = parseConfig(args, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`computerd serve: ${error.message}`);
    return 2;
  }
  if (parsed.kind === "help") {
    console.log(parsed.text);
    return 0;
  }
  const { config } = parsed;
  let daemon: Daemon | undefined;
  // An open terminal counts: what its shell writes uploads while it is open, as for a command.
  const busy = () => (daemon?.table.running().length ?? 0) + (daemon?.terminals.count() ?? 0) > 0;
  let opened: Workspace | undefined;
  const onFence = (stats: FenceStats) => {
    const round = (ms: number) => Math.round(ms * 10) / 10;
    const event = {
      event: "fence",
      ...stats,
      ms: round(stats.ms),
      flushMs: round(stats.flushMs),
      aheadMs: round(stats.aheadMs),
      waitedMs: round(stats.waitedMs),
      // Totals since start, for whoever watches the daemon (the benchmarks take differences).
      ...(opened ? { counters: workspaceCounters(opened) } : {}),
    };
    console.log(JSON.stringify(event));
  };
  // The commands' network (a bridge process to start) comes up while the mirror opens and mounts.
  const network = startCommandNetwork(config, undefined, prepared.network);
  // Awaited by startDaemon (which throws its failure); until then it must not count as unhandled.
  network.catch(() => undefined);
  let workspace: Workspace;
  try {
    workspace = await openWorkspace(config, { busy, log, onFence });
  } catch (err) {
    await network.then(
      (net) => net.close(),
      () => undefined,
    );
    throw err;
  }
  opened = workspace;
  let mounted = true;
  try {
    // A spare's root may still be mounting (spare.ts): the mirror and the mount did not need it.
    await prepared.rootReady;
    daemon = await startDaemon(config, {
      sync: workspace.sync,
      onLink: (link) => workspace.sync.onLink(link),
      mounted: () => mounted && config.mountBackend !== "none",
      sealedFds: [...fuseDeviceFds()],
      network,
      ...(prepared.spawner ? { spawner: prepared.spawner } : {}),
    });
  } catch (err) {
    await workspace.close();
    throw err;
  }
  console.log(
    JSON.stringify({
      event: "listening",
      host: config.host,
      port: daemon.port,
      pid: process.pid,
      version: VERSION,
      mountBackend: config.mountBackend,
      mirror: workspace.sync.endpointId,
    }),
  );
  // Given the Durable Object's link URL: dialed now, not after a /connect round trip.
  if (config.dialBack !== "") {
    daemon.links.connect(config.dialBack).catch((err: unknown) => log("dialing back failed", err));
  }
  const signal = await new Promise<string>((resolve) => {
    for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(name, () => resolve(name));
  });
  // Commands go first: their descriptors close, so everything they wrote reaches the mount.
  await workspace.uploader.stop();
  await Promise.all([daemon.table.shutdown(), daemon.terminals.shutdown()]);
  await workspace.sync.finalUpload(FINAL_UPLOAD_MS);
  await daemon.close();
  mounted = false;
  await workspace.close();
  console.log(JSON.stringify({ event: "stopped", signal }));
  return 0;
}

/** `serve --spare ...`: waits as a spare (spare.ts), then runs as the daemon it was assigned to be. */
async function runSpare(args: string[]): Promise<number> {
  const spare = await waitAsSpare(args);
  if (spare === undefined) return 0;
  Object.assign(process.env, spare.assignment.env);
  return run(spare.assignment.args, spare.prepared);
}

/** The serve command. */
export const serveCommand: Command = {
  summary: "run the daemon: mount, sync, exec, health, connect (see serve --help)",
  run: (args) => (args[0] === "--spare" ? runSpare(args.slice(1)) : run(args)),
};
