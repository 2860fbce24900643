/**
 * The ContainerLauncher contract, run against every implementation: Cloudflare Containers
 * (over a fake `ctx.container`) and the `computerd host` client (over a fake host). Then what
 * is specific to each: the container's environment and egress, boot probes, crash recovery,
 * interception of the dial-back host, host auth and an unreachable host.
 */
import { describe, expect, it } from "vitest";
import { CloudflareLauncher, type LaunchState } from "../src/container/cloudflare-launcher.ts";
import { ComputerdHostLauncher } from "../src/container/computerd-host-launcher.ts";
import { type ContainerLauncher, type LaunchSpec, specHash } from "../src/container/container-launcher.ts";
import { FakeContainer, FakeHost } from "./fake-computerd.ts";

const SPEC: LaunchSpec = { egress: "none", env: { COMPUTERD_COMPUTER_ID: "c1" } };
const OTHER: LaunchSpec = { egress: "all", env: { COMPUTERD_COMPUTER_ID: "c1" } };

function memoryState(): { get(): LaunchState | undefined; put(s: LaunchState | undefined): void } {
  let state: LaunchState | undefined;
  return { get: () => state, put: (s) => (state = s) };
}

interface Subject {
  launcher: ContainerLauncher;
  /** How many daemons were launched so far. */
  launches(): number;
}

const implementations: [string, () => Subject][] = [
  [
    "cloudflare",
    () => {
      const container = new FakeContainer();
      const launcher = new CloudflareLauncher({
        container,
        state: memoryState(),
        sleep: async () => undefined,
      });
      return { launcher, launches: () => container.starts.length };
    },
  ],
  [
    "host",
    () => {
      const host = new FakeHost("host-token");
      const launcher = new ComputerdHostLauncher({ url: host.url, token: host.token, fetch: host.fetch });
      return { launcher, launches: () => host.launches };
    },
  ],
];

describe.each(implementations)("ContainerLauncher contract: %s", (_, make) => {
  it("ensure starts a daemon that answers /health and accepts its secret on /connect", async () => {
    const { launcher, launches } = make();
    const daemon = await launcher.ensure("c1", SPEC, await specHash(SPEC));
    expect(launches()).toBe(1);
    expect(daemon.secret.length).toBeGreaterThanOrEqual(16);
    expect((await daemon.fetch("/health")).status).toBe(200);
    const connect = await daemon.fetch("/connect", {
      method: "POST",
      headers: { Authorization: `Bearer ${daemon.secret}` },
      body: JSON.stringify({ base: "http://x/v1/computers/c1/_computerd", computer: "c1" }),
    });
    expect(connect.status).toBe(200);
    expect((await daemon.fetch("/connect", { method: "POST", body: "{}" })).status).toBe(401);
    expect(await launcher.health("c1")).toEqual({ running: true, healthy: true });
  });

  it("ensure with the same spec reuses the daemon; a changed spec relaunches it", async () => {
    const { launcher, launches } = make();
    const first = await launcher.ensure("c1", SPEC, await specHash(SPEC));
    const again = await launcher.ensure("c1", SPEC, await specHash(SPEC));
    expect(again.secret).toBe(first.secret);
    expect(launches()).toBe(1);
    const changed = await launcher.ensure("c1", OTHER, await specHash(OTHER));
    expect(launches()).toBe(2);
    expect(changed.secret).not.toBe(first.secret);
  });

  it("stop and destroy leave no daemon running; ensure starts a new one", async () => {
    const { launcher, launches } = make();
    await launcher.ensure("c1", SPEC, await specHash(SPEC));
    await launcher.stop("c1");
    expect(await launcher.health("c1")).toEqual({ running: false, healthy: false });
    await launcher.ensure("c1", SPEC, await specHash(SPEC));
    expect(launches()).toBe(2);
    await launcher.destroy("c1");
    expect((await launcher.health("c1")).running).toBe(false);
  });
});

describe("specHash", () => {
  it("is stable across key order and changes with any field", async () => {
    const a = await specHash({ egress: "none", env: { A: "1", B: "2" } });
    expect(await specHash({ env: { B: "2", A: "1" }, egress: "none" })).toBe(a);
    expect(await specHash({ egress: { allow: ["x.com"] }, env: { A: "1", B: "2" } })).not.toBe(a);
    expect(await specHash({ egress: "none", env: { A: "1", B: "2" }, image: "img" })).not.toBe(a);
  });
});

describe("CloudflareLauncher", () => {
  it("starts the container with the secret, the port and the egress policy, and waits for /health", async () => {
    const container = new FakeContainer();
    container.bootProbes = 3;
    const fetcher = { fetch: async () => new Response() } as unknown as Fetcher;
    const launcher = new CloudflareLauncher({
      container,
      state: memoryState(),
      sleep: async () => undefined,
      dialBack: { host: "computer.internal", fetcher },
    });
    const daemon = await launcher.ensure("c1", { ...SPEC, image: "computerd:1" }, "h1");
    expect(container.starts).toHaveLength(1);
    const options = container.starts[0];
    expect(options).toMatchObject({ enableInternet: false, image: "computerd:1" });
    expect(options?.env).toMatchObject({
      COMPUTERD_SECRET: daemon.secret,
      COMPUTERD_PORT: "8080",
      COMPUTERD_COMPUTER_ID: "c1",
    });
    expect(container.bootProbes).toBe(0);
    expect(container.intercepts).toEqual(["computer.internal"]);
    expect(daemon.dialBase).toBe("http://computer.internal");
    await launcher.ensure("c1", OTHER, "h2");
    expect(container.destroys).toBe(1);
    expect(container.starts[1]?.enableInternet).toBe(true);
  });

  it("an allow-list starts the container with internet and EGRESS_ALLOW for computerd's proxy; none and all set no list", async () => {
    const container = new FakeContainer();
    const launcher = new CloudflareLauncher({
      container,
      state: memoryState(),
      sleep: async () => undefined,
    });
    const allow: LaunchSpec = { egress: { allow: ["registry.npmjs.org", "*.example.com:443"] }, env: {} };
    await launcher.ensure("c1", allow, "h1");
    expect(container.starts[0]).toMatchObject({ enableInternet: true });
    expect(container.starts[0]?.env?.EGRESS_ALLOW).toBe("registry.npmjs.org,*.example.com:443");
    await launcher.ensure("c1", SPEC, "h2");
    await launcher.ensure("c1", OTHER, "h3");
    await launcher.ensure("c1", { egress: { allow: [] }, env: {} }, "h4");
    expect(container.starts.map((start) => [start.enableInternet, start.env?.EGRESS_ALLOW])).toEqual([
      [true, "registry.npmjs.org,*.example.com:443"],
      [false, undefined],
      [true, undefined],
      [false, undefined],
    ]);
  });

  it("previews go through computerd's /ports route with the secret as proxy credentials", async () => {
    const container = new FakeContainer();
    const launcher = new CloudflareLauncher({
      container,
      state: memoryState(),
      sleep: async () => undefined,
    });
    const request = () =>
      new Request("https://preview.example/app/page?q=1", { headers: { Authorization: "Bearer app" } });
    const before = await launcher.fetchPort("c1", 3000, request());
    expect(before.status).toBe(502);
    expect(((await before.json()) as { error: { code: string } }).error.code).toBe("ECONNREFUSED");
    await launcher.ensure("c1", { egress: { allow: ["registry.npmjs.org"] }, env: {} }, "h1");
    const res = await launcher.fetchPort("c1", 3000, request());
    expect(await res.text()).toBe("port 3000: GET /app/page?q=1 (authorization Bearer app)");
  });

  it("relaunches after a crash, and reports 503 when computerd never becomes healthy", async () => {
    const container = new FakeContainer();
    const launcher = new CloudflareLauncher({
      container,
      state: memoryState(),
      sleep: async () => undefined,
      startTimeoutMs: 50,
    });
    await launcher.ensure("c1", SPEC, "h1");
    container.crash();
    await launcher.ensure("c1", SPEC, "h1");
    expect(container.starts).toHaveLength(2);
    await launcher.stop("c1");
    container.start = (options) => {
      FakeContainer.prototype.start.call(container, options);
      if (container.daemon) container.daemon.healthy = false;
    };
    await expect(launcher.ensure("c1", SPEC, "h1")).rejects.toMatchObject({ code: "EUNAVAILABLE" });
  });
});

describe("ComputerdHostLauncher", () => {
  it("sends the host token, and an unreachable or refusing host is 503", async () => {
    const host = new FakeHost("right");
    const wrong = new ComputerdHostLauncher({ url: host.url, token: "wrong", fetch: host.fetch });
    await expect(wrong.ensure("c1", SPEC, "h")).rejects.toMatchObject({ code: "EUNAVAILABLE" });
    const down = new ComputerdHostLauncher({
      url: "http://127.0.0.1:9",
      token: "t",
      fetch: () => Promise.reject(new TypeError("connection refused")),
    });
    const err = await down.ensure("c1", SPEC, "h").catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "EUNAVAILABLE", headers: { "Retry-After": "5" } });
    const ok = new ComputerdHostLauncher({ url: `${host.url}/`, token: "right", fetch: host.fetch });
    await ok.ensure("c1", SPEC, "h");
    await ok.destroy("c1");
    expect(host.destroyed).toEqual(["c1"]);
  });
});
