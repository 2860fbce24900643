/**
 * The docker host's pure parts and the HTTP surface that needs no engine: the `docker run`
 * arguments (FUSE device, SYS_ADMIN, host network, secret by name only), bearer auth and
 * unknown computers, answered by computerd's host server like `computerd host`'s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containerEnv, type DockerHost, runArgs, startDockerHost } from "./docker-host.ts";

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

describe("containerEnv", () => {
  it("passes an allow-list as EGRESS_ALLOW, and nothing for none or all", () => {
    const env = { COMPUTERD_COMPUTER_ID: "c1" };
    expect(
      containerEnv({ egress: "none", egressAllow: ["registry.npmjs.org", "*.example.com:443"], env }),
    ).toEqual({
      COMPUTERD_COMPUTER_ID: "c1",
      EGRESS_ALLOW: "registry.npmjs.org,*.example.com:443",
    });
    expect(containerEnv({ egress: "none", egressAllow: [], env: {} })).toEqual({});
    expect(containerEnv({ egress: "all", egressAllow: [], env: {} })).toEqual({});
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
    const bad = await fetch(`${base}/computers/..%2Fetc`, { headers });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("EINVAL");
    expect((await fetch(`${base}/computers/c1/nope`, { headers })).status).toBe(404);
    const method = await fetch(`${base}/computers/c1/ensure`, { headers });
    expect(method.status).toBe(405);
    expect(((await method.json()) as { error: { code: string } }).error.code).toBe("ENOTSUP");
    expect(host.containers.size).toBe(0);
  });
});
