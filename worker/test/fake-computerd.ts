/**
 * In-process fakes behind the ContainerLauncher implementations: a fake computerd HTTP
 * server (`/health`, bearer-checked `/connect`, `/ports/:port/...` with the secret as proxy
 * credentials, answering what an app there was asked), a faithful fake of `ctx.container`
 * (start/running/monitor/getTcpPort(port).fetch/destroy/signal/interceptOutboundHttp) that
 * routes fetches to a fake computerd started with the container's environment, and a fake
 * `computerd host` answering the host launcher's HTTP calls.
 */
import type { ContainerApi } from "../src/container/cloudflare-launcher.ts";

/** A fake computerd: its secret and the /connect calls it received. */
export class FakeComputerd {
  readonly secret: string;
  readonly env: Record<string, string>;
  readonly connects: { base: string; computer: string }[] = [];
  healthy = true;

  constructor(secret: string, env: Record<string, string> = {}) {
    this.secret = secret;
    this.env = env;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health" && request.method === "GET") {
      return this.healthy ? Response.json({ ok: true }) : new Response("starting", { status: 503 });
    }
    const preview = /^\/ports\/(\d+)(\/.*)$/.exec(url.pathname);
    if (preview !== null) {
      if (request.headers.get("proxy-authorization") !== `Bearer ${this.secret}`) {
        return Response.json({ error: { code: "EUNAUTHORIZED" } }, { status: 401 });
      }
      const auth = request.headers.get("authorization") ?? "none";
      return new Response(
        `port ${preview[1]}: ${request.method} ${preview[2]}${url.search} (authorization ${auth})`,
      );
    }
    if (request.headers.get("authorization") !== `Bearer ${this.secret}`) {
      return Response.json({ error: { code: "EUNAUTHORIZED" } }, { status: 401 });
    }
    if (url.pathname === "/connect" && request.method === "POST") {
      const body = (await request.json()) as { base: string; computer: string };
      this.connects.push(body);
      return Response.json({ connected: true, url: body.base });
    }
    return new Response("not found", { status: 404 });
  }
}

/** A fake of `ctx.container`. */
export class FakeContainer implements ContainerApi {
  starts: ContainerStartupOptions[] = [];
  destroys = 0;
  signals: number[] = [];
  intercepts: string[] = [];
  daemon: FakeComputerd | undefined;
  /** Probes that fail before the daemon answers (simulates boot time). */
  bootProbes = 0;
  #stopped: (() => void) | undefined;

  get running(): boolean {
    return this.daemon !== undefined;
  }

  start(options: ContainerStartupOptions = {}): void {
    if (this.running) throw new Error("container already running");
    this.starts.push(options);
    const env = options.env ?? {};
    this.daemon = new FakeComputerd(env.COMPUTERD_SECRET ?? "", env);
  }

  monitor(): Promise<void> {
    if (!this.running) return Promise.reject(new Error("not running"));
    return new Promise((resolve) => {
      this.#stopped = resolve;
    });
  }

  async destroy(): Promise<void> {
    this.destroys++;
    this.daemon = undefined;
    this.#stopped?.();
  }

  signal(signo: number): void {
    this.signals.push(signo);
  }

  getTcpPort(port: number): { fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> } {
    return {
      fetch: async (input, init) => {
        const daemon = this.daemon;
        if (daemon === undefined || port !== 8080) throw new Error("the container is not listening");
        if (this.bootProbes > 0) {
          this.bootProbes--;
          throw new Error("connection refused");
        }
        return daemon.fetch(new Request(input, init));
      },
    };
  }

  async interceptOutboundHttp(addr: string, _binding: Fetcher): Promise<void> {
    this.intercepts.push(addr);
  }

  /** Simulates the container crashing. */
  crash(): void {
    this.daemon = undefined;
    this.#stopped?.();
  }
}

/** A fake `computerd host` on `http://127.0.0.1:8790`, with daemons on their own fake ports. */
export class FakeHost {
  readonly url = "http://127.0.0.1:8790";
  readonly token: string;
  readonly daemons = new Map<string, { daemon: FakeComputerd; port: number; specHash: string }>();
  readonly destroyed: string[] = [];
  launches = 0;
  #nextPort = 41000;

  constructor(token: string) {
    this.token = token;
  }

  /** The fetch to give the launcher: the host's routes, and each daemon on its port. */
  fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.origin !== this.url) {
      const entry = [...this.daemons.values()].find((d) => url.origin === `http://127.0.0.1:${d.port}`);
      if (entry === undefined) throw new TypeError("connection refused");
      return entry.daemon.fetch(request);
    }
    if (request.headers.get("authorization") !== `Bearer ${this.token}`)
      return new Response(null, { status: 401 });
    const match = /^\/computers\/([a-z0-9-]+)(\/ensure|\/stop)?$/.exec(url.pathname);
    const id = match?.[1];
    if (id === undefined) return new Response(null, { status: 404 });
    const action = `${request.method} ${match?.[2] ?? ""}`;
    if (action === "POST /ensure") {
      const { specHash } = (await request.json()) as { specHash: string };
      let entry = this.daemons.get(id);
      if (entry === undefined || entry.specHash !== specHash) {
        this.launches++;
        entry = { daemon: new FakeComputerd(crypto.randomUUID()), port: this.#nextPort++, specHash };
        this.daemons.set(id, entry);
      }
      return Response.json({ url: `http://127.0.0.1:${entry.port}`, secret: entry.daemon.secret, specHash });
    }
    if (action === "POST /stop" || action === "DELETE ") {
      this.daemons.delete(id);
      if (action === "DELETE ") this.destroyed.push(id);
      return new Response(null, { status: 204 });
    }
    if (action === "GET ") {
      const running = this.daemons.has(id);
      return Response.json({ running, healthy: running });
    }
    return new Response(null, { status: 405 });
  };
}
