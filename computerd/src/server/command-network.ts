/**
 * The network a daemon's commands run in, from its Config:
 * - sandboxed (bwrap) with egress none: one namespace of their own with only a loopback
 *   (sandbox-network.ts), which previews reach through the port bridge;
 * - with an allow-list (egress none, EGRESS_ALLOW), sandboxed or not: the same namespace, plus
 *   the daemon's egress proxy (egress-proxy.ts) relayed from 127.0.0.1:3128 inside
 *   (egress-relay.ts), the one way out; without a sandbox (the production container, where the
 *   container itself has the internet) the namespace is made by `unshare` and commands give up
 *   the capabilities that would leave it (namespace-guard.ts);
 * - otherwise (egress all, or no sandbox and no allow-list): the daemon's own network.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { type EgressProxy, startEgressProxy } from "../egress/egress-proxy.ts";
import { PROXY_ENV } from "../egress/egress-relay.ts";
import { SandboxNetwork } from "../exec/sandbox-network.ts";

/** Where commands reach: their namespace (if any) and what their environment adds. */
export interface CommandNetwork {
  network: SandboxNetwork | undefined;
  /** The proxy variables (and NO_PROXY for the namespace's own loopback) under an allow-list. */
  env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** The daemon's own network: no namespace, nothing added. */
export const OWN_NETWORK: CommandNetwork = { network: undefined, env: {}, close: async () => undefined };

/** Hosts that never go through the proxy: the namespace's own servers. */
const NO_PROXY = "localhost,127.0.0.1,::1";

/** The allow-list of `--egress-allow` (comma-separated, blanks dropped). */
export function egressAllowList(config: Config): string[] {
  return config.egressAllow
    .split(",")
    .map((host) => host.trim())
    .filter((host) => host !== "");
}

/** Starts the proxy and the namespace `config` asks for (resolves once both serve). */
export async function startCommandNetwork(
  config: Config,
  log: (message: string) => void = (message) => console.error(`computerd: ${message}`),
  spare?: Promise<SandboxNetwork>,
): Promise<CommandNetwork> {
  const allow = config.egress === "none" ? egressAllowList(config) : [];
  const sandboxed = config.execSandbox === "bwrap";
  // A spare daemon's bridge (commands/spare.ts) is a fresh namespace's: it serves exactly the
  // network asked for here, sandboxed without an allow-list; any other is started anew.
  const fits = sandboxed && config.egress === "none" && allow.length === 0;
  const prepared = spare?.catch(() => undefined);
  if (!fits) void prepared?.then((network) => network?.close());
  if (!(sandboxed && config.egress === "none") && allow.length === 0) {
    return OWN_NETWORK;
  }
  const ready = fits ? await prepared : undefined;
  if (ready !== undefined) {
    return { network: ready, env: {}, close: async () => ready.close() };
  }
  let proxy: EgressProxy | undefined;
  let dir: string | undefined;
  if (allow.length > 0) {
    // A short private path (a unix socket's is at most 107 bytes), the daemon's user's alone.
    dir = mkdtempSync(join(tmpdir(), "computerd-egress-"));
    proxy = await startEgressProxy({ allow }, join(dir, "proxy.sock"));
  }
  const socket = dir === undefined ? {} : { egressSocket: join(dir, "proxy.sock") };
  let network: SandboxNetwork;
  try {
    network = await SandboxNetwork.start({ isolation: sandboxed ? "bwrap" : "unshare", ...socket, log });
  } catch (error) {
    await proxy?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    network,
    env: proxy === undefined ? {} : { ...PROXY_ENV, NO_PROXY, no_proxy: NO_PROXY },
    async close() {
      network.close();
      await proxy?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
