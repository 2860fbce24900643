/**
 * What `computerd host`'s HTTP protocol (host-server.ts) needs of whatever runs a computer's
 * `computerd serve`: start one for a launch spec, and forget what a deleted computer left. Two
 * launchers exist — child processes of this host whose commands run in bubblewrap
 * (bwrap-launcher.ts, `computerd host`, make dev) and one container of the image per computer
 * under a docker engine (images/src/docker-host.ts, `make dev CONTAINERS=docker`, the image
 * tests) — and one server speaks the protocol for both.
 */
import { egressAllowList } from "@computer/sdk/egress-match";

/** A computer's running daemon, as a launcher started it. */
export interface LaunchedDaemon {
  /** Where its HTTP API answers (127.0.0.1). */
  readonly url: string;
  /** Its bearer secret (fresh at every start). */
  readonly secret: string;
  /** The spec hash it was started for: another one relaunches it. */
  readonly specHash: string;
  /** False once it has exited. */
  readonly alive: boolean;
  /** When it last served the host (an ensure, preview traffic); the idle sweeper reads it. */
  lastUsed: number;
  /** It was started with a link URL to dial (`--dial-back`) and dials it by itself. */
  readonly dialing?: boolean;
  /** Stops it and releases what it held (idempotent). */
  stop(): Promise<void>;
}

/** The parts of the Worker's launch spec a local launcher honours. */
export interface LocalLaunchSpec {
  /** An allow-list is a network namespace of its own too, whose only way out is its proxy. */
  egress: "none" | "all";
  /** With egress none: the hosts the daemon's egress proxy lets through (the Worker validated them). */
  egressAllow: string[];
  /** The spec's COMPUTERD_* variables, never the secret. */
  env: Record<string, string>;
}

/** Runs computers' daemons for the host server. */
export interface ComputerLauncher {
  /**
   * Starts computer `id`'s daemon; resolves once it listens. A launcher that can passes
   * `dialBack` (the Durable Object's link URL) on (`--dial-back`) and says so (`dialing`).
   */
  start(id: string, spec: LocalLaunchSpec, specHash: string, dialBack?: string): Promise<LaunchedDaemon>;
  /** Deletes what a stopped computer left on this machine (its state, its folders). */
  forget(id: string): Promise<void>;
  /** Stops what the launcher keeps besides the daemons (a spare daemon). */
  close?(): Promise<void>;
}

/** The local launch spec of the Worker's `spec` (anything: it comes off the wire). */
export function localLaunchSpec(spec: unknown): LocalLaunchSpec {
  const fields =
    typeof spec === "object" && spec !== null ? (spec as { egress?: unknown; env?: unknown }) : {};
  const env: Record<string, string> = {};
  if (typeof fields.env === "object" && fields.env !== null) {
    for (const [key, value] of Object.entries(fields.env)) {
      if (/^COMPUTERD_[A-Z_]+$/.test(key) && key !== "COMPUTERD_SECRET" && typeof value === "string")
        env[key] = value;
    }
  }
  return {
    egress: fields.egress === "all" ? "all" : "none",
    egressAllow: egressAllowList(fields.egress),
    env,
  };
}
