/**
 * The Cloudflare Containers launcher (production): the Computer DO is container-enabled and
 * drives its own container through `ctx.container`: start with the per-daemon secret in the
 * environment, health-probe computerd's `GET /health` through `getTcpPort(port).fetch`, and
 * relaunch when the launch spec changed (its hash is stored beside the secret). computerd
 * dials back to a virtual host whose outbound HTTP the DO intercepts. Egress (containerEgress):
 * `none` starts the container without internet, `all` with it, and an allow-list with it too
 * but with EGRESS_ALLOW set, so computerd runs every command in a network namespace whose one
 * way out is its egress proxy (computerd/README.md, "Egress allow-lists").
 */
import { egressAllowList } from "@computer/sdk/egress-match";
import type { Egress } from "../egress/egress.ts";
import { ApiError } from "../http/errors.ts";
import {
  type ContainerHealth,
  type ContainerLauncher,
  type DaemonEndpoint,
  type LaunchSpec,
  newDaemonSecret,
  portRefused,
  RETRY_AFTER_SECONDS,
} from "./container-launcher.ts";

/** The part of `ctx.container` the launcher uses (tests pass a fake). */
export interface ContainerApi {
  readonly running: boolean;
  start(options?: ContainerStartupOptions): void;
  monitor(): Promise<void>;
  destroy(error?: unknown): Promise<void>;
  signal(signo: number): void;
  getTcpPort(port: number): { fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> };
  interceptOutboundHttp?(addr: string, binding: Fetcher): Promise<void>;
}

/** What the launcher persists about the running container (in the DO's storage). */
export interface LaunchState {
  secret: string;
  specHash: string;
}

/** Where the launcher keeps its LaunchState. */
export interface LaunchStateStore {
  get(): LaunchState | undefined;
  put(state: LaunchState | undefined): void;
}

/** Options of the Cloudflare launcher. */
export interface CloudflareLauncherOptions {
  container: ContainerApi;
  state: LaunchStateStore;
  /** computerd's HTTP port inside the container. */
  port?: number;
  /** The virtual host computerd dials back to and the fetcher serving it (the DO's link route). */
  dialBack?: { host: string; fetcher: Fetcher };
  /** How long to wait for `GET /health` after a start. */
  startTimeoutMs?: number;
  /** Pause between health probes. */
  probeIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** computerd's default port in the image. */
export const COMPUTERD_PORT = 8080;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function unavailable(message: string): ApiError {
  return new ApiError("EUNAVAILABLE", message, { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });
}

/**
 * How a computer's egress policy starts its container: the platform's internet switch, and
 * what computerd is told. An allow-list needs the internet for computerd's egress proxy; its
 * commands reach it only through that proxy.
 */
export function containerEgress(egress: Egress): { enableInternet: boolean; env: Record<string, string> } {
  const allow = egressAllowList(egress);
  if (allow.length > 0) return { enableInternet: true, env: { EGRESS_ALLOW: allow.join(",") } };
  return { enableInternet: egress === "all", env: {} };
}

/** A ContainerLauncher over the DO's own container. */
export class CloudflareLauncher implements ContainerLauncher {
  readonly kind = "cloudflare";
  readonly #container: ContainerApi;
  readonly #state: LaunchStateStore;
  readonly #port: number;
  readonly #dialBack: { host: string; fetcher: Fetcher } | undefined;
  readonly #startTimeoutMs: number;
  readonly #probeIntervalMs: number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: CloudflareLauncherOptions) {
    this.#container = options.container;
    this.#state = options.state;
    this.#port = options.port ?? COMPUTERD_PORT;
    this.#dialBack = options.dialBack;
    this.#startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.#probeIntervalMs = options.probeIntervalMs ?? 250;
    this.#sleep = options.sleep ?? defaultSleep;
  }

  #fetch(path: string, init?: RequestInit): Promise<Response> {
    return this.#container.getTcpPort(this.#port).fetch(`http://computerd${path}`, init);
  }

  async #probe(): Promise<boolean> {
    try {
      const res = await this.#fetch("/health", { signal: AbortSignal.timeout(5_000) });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  #endpoint(secret: string): DaemonEndpoint {
    const endpoint: DaemonEndpoint = { secret, fetch: (path, init) => this.#fetch(path, init) };
    if (this.#dialBack !== undefined) endpoint.dialBase = `http://${this.#dialBack.host}`;
    return endpoint;
  }

  async #start(spec: LaunchSpec, specHash: string): Promise<string> {
    const secret = newDaemonSecret();
    const egress = containerEgress(spec.egress);
    const env: Record<string, string> = {
      ...spec.env,
      ...egress.env,
      COMPUTERD_SECRET: secret,
      COMPUTERD_PORT: String(this.#port),
    };
    const { enableInternet } = egress;
    const options: ContainerStartupOptions =
      spec.image === undefined ? { env, enableInternet } : { env, enableInternet, image: spec.image };
    this.#container.start(options);
    // The state is kept before the container answers so a dial-back can authenticate at once.
    this.#state.put({ secret, specHash });
    void this.#container.monitor().then(
      () => this.#forget(secret),
      () => this.#forget(secret),
    );
    if (this.#dialBack !== undefined && this.#container.interceptOutboundHttp !== undefined) {
      await this.#container.interceptOutboundHttp(this.#dialBack.host, this.#dialBack.fetcher);
    }
    return secret;
  }

  #forget(secret: string): void {
    if (this.#state.get()?.secret === secret) this.#state.put(undefined);
  }

  async ensure(_computerId: string, spec: LaunchSpec, specHash: string): Promise<DaemonEndpoint> {
    const state = this.#state.get();
    if (this.#container.running && state !== undefined && state.specHash === specHash) {
      if (await this.#probe()) return this.#endpoint(state.secret);
    }
    if (this.#container.running) {
      await this.#container.destroy();
      this.#state.put(undefined);
    }
    let secret: string;
    try {
      secret = await this.#start(spec, specHash);
    } catch (err) {
      throw unavailable(`the container could not be started: ${String(err)}`);
    }
    const deadline = Date.now() + this.#startTimeoutMs;
    while (Date.now() < deadline) {
      if (await this.#probe()) return this.#endpoint(secret);
      if (!this.#container.running) break;
      await this.#sleep(this.#probeIntervalMs);
    }
    throw unavailable("computerd in the container did not become healthy");
  }

  async stop(_computerId: string): Promise<void> {
    if (this.#container.running) await this.#container.destroy();
    this.#state.put(undefined);
  }

  async destroy(computerId: string): Promise<void> {
    await this.stop(computerId);
  }

  /**
   * Through computerd's preview route (`/ports/:port/...`, the secret as proxy credentials), as
   * `computerd host` does locally: computerd knows the network its commands run in (the
   * container's, or under an allow-list a namespace of their own that only it reaches).
   */
  async fetchPort(_computerId: string, port: number, request: Request): Promise<Response> {
    const state = this.#state.get();
    if (!this.#container.running || state === undefined) {
      return portRefused(port, "the computer's container is not running");
    }
    const { pathname, search } = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("Proxy-Authorization", `Bearer ${state.secret}`);
    try {
      return await this.#fetch(`/ports/${port}${pathname}${search}`, {
        method: request.method,
        headers,
        body: request.body,
        redirect: "manual",
      });
    } catch (err) {
      return portRefused(port, String(err));
    }
  }

  async health(_computerId: string): Promise<ContainerHealth> {
    if (!this.#container.running) return { running: false, healthy: false };
    return { running: true, healthy: await this.#probe() };
  }
}
