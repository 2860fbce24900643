/**
 * Where a computer's container comes from. A ContainerLauncher makes sure one computerd runs
 * for a computer with a given launch spec and returns how to reach its HTTP port and the
 * per-daemon secret. Implementations: Cloudflare Containers (cloudflare-launcher.ts, production)
 * and `computerd host` (computerd-host-launcher.ts, the local default).
 */
import type { Egress } from "../egress/egress.ts";
import { errorResponse } from "../http/errors.ts";

/** What a computerd is launched with; a change of any field relaunches it. */
export interface LaunchSpec {
  /** Outbound network policy of commands. */
  egress: Egress;
  /** Extra environment for computerd (never secrets of the user). */
  env: Record<string, string>;
  /** Container image (Cloudflare: a name of `ctx.container.images` or a registry reference). */
  image?: string;
}

/** How the DO reaches one running computerd. */
export interface DaemonEndpoint {
  /** Sends an HTTP request to computerd (`path` like `/connect`); the caller adds the bearer. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** computerd's bearer secret: the DO sends it, and the dial-back must present it. */
  secret: string;
  /**
   * Base URL computerd must dial back to, when the launcher decides it (Cloudflare: a host
   * intercepted by the DO). Otherwise the Worker's own origin is used.
   */
  dialBase?: string;
  /**
   * computerd was started now with the link URL the DO offered (`ensure`'s `dialBack`) and
   * dials it by itself as soon as it listens: no `/connect` is needed.
   */
  dialing?: boolean;
}

/**
 * Whether a computer's container runs and its computerd answers, as the launcher sees it (the
 * daemon's own report over the link is `DaemonHealth` of vfs/src/sync/wire.ts).
 */
export interface ContainerHealth {
  running: boolean;
  healthy: boolean;
}

/** Starts, probes and stops the computerd of a computer. */
export interface ContainerLauncher {
  /** Short name for logs and errors ("cloudflare", "host"). */
  readonly kind: string;
  /**
   * Makes sure computerd runs with `spec` (whose hash is `specHash`): starts it when absent,
   * relaunches it when it runs with another spec, and resolves once its `GET /health` answers.
   * `dialBack` is the link URL at the Worker's origin: a launcher that can has a computerd it
   * starts dial it by itself (`DaemonEndpoint.dialing`). Throws ApiError EUNAVAILABLE (with
   * Retry-After) when it cannot.
   */
  ensure(computerId: string, spec: LaunchSpec, specHash: string, dialBack?: string): Promise<DaemonEndpoint>;
  /** Stops computerd (its state stays). */
  stop(computerId: string): Promise<void>;
  /** Stops computerd and deletes everything it kept (the computer was deleted). */
  destroy(computerId: string): Promise<void>;
  health(computerId: string): Promise<ContainerHealth>;
  /**
   * Sends `request` (HTTP or a WebSocket upgrade; its URL's path and query are what the app
   * gets) to TCP `port` inside the computer's container, without starting anything: a
   * container that is not running, or a port nothing listens on, answers 502 ECONNREFUSED.
   */
  fetchPort(computerId: string, port: number, request: Request): Promise<Response>;
}

/** The answer when nothing listens on a previewed port (or no container runs). */
export function portRefused(port: number, why = "nothing listens on it"): Response {
  return errorResponse("ECONNREFUSED", `port ${port} of the computer's container refused: ${why}`);
}

/** Canonical JSON: object keys sorted, so equal specs hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Hex sha-256 of the canonical spec. */
export async function specHash(spec: LaunchSpec): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(spec)));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh per-daemon secret (32 random bytes, hex). */
export function newDaemonSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Seconds a client should wait before retrying when a container is not reachable yet. */
export const RETRY_AFTER_SECONDS = 5;
