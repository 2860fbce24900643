/**
 * The docker host's pure parts and the HTTP surface that needs no engine: the `docker run`
 * arguments (FUSE device, SYS_ADMIN, host network, secret by name only), the spec's environment
 * filter, bearer auth and unknown computers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DockerHost, runArgs, specEnv, startDockerHost } from "./docker-host.ts";

describe("runArgs", () => {
  it("runs the image with /dev/fuse, SYS_ADMIN and host networking, the secret passed by name", () => {
    const args = runArgs("computer/computerd:latest", "computerd-c1-abc", 40123, {
      COMPUTERD_COMPUTER_ID: "c1",
    });
    expect(args.slice(0, 7)).toEqual([
      "run",
      "-d",
      "--rm",
      "--name",
      "computerd-c1-abc",
      "--network",
      "host",
    ]);
    expect(args.join(" ")).toContain("--device /dev/fuse --cap-add SYS_ADMIN");
    expect(args.join(" ")).toContain(
      "-e COMPUTERD_SECRET -e COMPUTERD_HOST=127.0.0.1 -e COMPUTERD_PORT=40123",
    );
    expect(args.join(" ")).toContain("-e COMPUTERD_COMPUTER_ID=c1");
    expect(args.at(-1)).toBe("computer/computerd:latest");
  });
});

describe("specEnv", () => {
  it("keeps COMPUTERD_* variables but never the secret", () => {
    expect(
      specEnv({ env: { COMPUTERD_COMPUTER_ID: "c1", COMPUTERD_SECRET: "x", PATH: "/evil", COMPUTERD_N: 1 } }),
    ).toEqual({ COMPUTERD_COMPUTER_ID: "c1" });
    expect(specEnv(undefined)).toEqual({});
  });

  it("passes an allow-list as EGRESS_ALLOW, and nothing for none or all", () => {
    expect(specEnv({ egress: { allow: ["registry.npmjs.org", "*.example.com:443"] }, env: {} })).toEqual({
      EGRESS_ALLOW: "registry.npmjs.org,*.example.com:443",
    });
    expect(specEnv({ egress: "none", env: {} })).toEqual({});
    expect(specEnv({ egress: "all", env: {} })).toEqual({});
  });
});

describe("the host's HTTP API without a container", () => {
  let host: DockerHost;
  const token = "t".repeat(32);

  beforeAll(async () => {
    host = await startDockerHost({ image: "unused", token });
  });
  afterAll(async () => {
    await host.close();
  });

  it("answers /health without a token and refuses everything else without it", async () => {
    const base = `http://127.0.0.1:${host.port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/computers/c1`)).status).toBe(401);
    const wrong = await fetch(`${base}/computers/c1`, { headers: { Authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
  });

  it("reports an unknown computer as not running and refuses bad ids", async () => {
    const base = `http://127.0.0.1:${host.port}`;
    const headers = { Authorization: `Bearer ${token}` };
    const res = await fetch(`${base}/computers/c1`, { headers });
    expect(await res.json()).toEqual({ running: false, healthy: false });
    expect((await fetch(`${base}/computers/..%2Fetc`, { headers })).status).toBe(404);
    expect(host.containers.size).toBe(0);
  });
});
