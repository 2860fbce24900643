/**
 * A ContainerLauncher for tests whose computerd is the test itself: `/connect` calls are
 * queued for `nextConnect()`, after which the test dials back like computerd would; its
 * container ports answer with the handlers a test puts in `ports`.
 */
import {
  type ContainerLauncher,
  type DaemonEndpoint,
  type LaunchSpec,
  portRefused,
} from "../src/container/container-launcher.ts";

/**
 * A launcher whose computerd is the test: `/connect` calls are queued for `nextConnect()`,
 * which polls (a promise resolved inside the DO would run the test's continuation in the
 * DO's I/O context).
 */
export class LinkTestLauncher implements ContainerLauncher {
  readonly kind = "test";
  readonly secret = `secret-${crypto.randomUUID()}`;
  readonly specs: LaunchSpec[] = [];
  readonly destroyed: string[] = [];
  /** What answers on each port of the container (none: refused, as when nothing listens). */
  readonly ports = new Map<number, (request: Request) => Response | Promise<Response>>();
  readonly #connects: { base: string }[] = [];
  /** The link URLs the DO offered with each ensure. */
  readonly offered: (string | undefined)[] = [];
  /** Answer that computerd dials the offered URL itself (as computerd host's daemons do). */
  dialing = false;
  /** While set, ensure answers only once it settles. */
  held: Promise<void> | undefined;

  async ensure(_id: string, spec: LaunchSpec, _hash: string, dialBack?: string): Promise<DaemonEndpoint> {
    this.specs.push(spec);
    this.offered.push(dialBack);
    await this.held;
    return {
      ...(this.dialing ? { dialing: true } : {}),
      secret: this.secret,
      fetch: async (path, init) => {
        if (path !== "/connect") return new Response(null, { status: 404 });
        this.#connects.push(JSON.parse(String(init?.body)) as { base: string });
        return Response.json({ connected: true });
      },
    };
  }
  /** The number of /connect calls not taken by nextConnect yet. */
  get connectsQueued(): number {
    return this.#connects.length;
  }
  async nextConnect(): Promise<{ base: string }> {
    for (;;) {
      const queued = this.#connects.shift();
      if (queued) return queued;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  async stop(): Promise<void> {}
  async destroy(id: string): Promise<void> {
    this.destroyed.push(id);
  }
  async fetchPort(_id: string, port: number, request: Request): Promise<Response> {
    const app = this.ports.get(port);
    return app === undefined ? portRefused(port) : app(request);
  }
  async health() {
    return { running: true, healthy: true };
  }
}
