/**
 * An allow-list on the image, the production path end to end but for Cloudflare itself: the
 * Worker launches the computer's container from the image through the docker host, which passes
 * the allow-list as EGRESS_ALLOW as the Cloudflare launcher does; computerd there runs commands
 * without a sandbox, as root, with docker's default capabilities plus SYS_ADMIN and the host's
 * network, so without its namespace they would reach everything on the host. With it, a command
 * reaches the allowed server on the host's 127.0.0.1 through HTTPS_PROXY, gets a 403 for
 * another, nothing directly (no route), and cannot join the container's network again.
 * docs/deploy.md and docs/THREAT_MODEL.md cite this test. Needs a docker engine and the image.
 */
import type { Server } from "node:http";
import type { Fleet } from "@computer/fleet";
import { ContractClient, expectCompleted } from "@computer/fleet/container-contract";
import { createAllowListed, listenWith, portOf } from "@computer/fleet/egress-fixture";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDockerFleet } from "./docker-fleet.ts";

const client = new ContractClient("image-egress");
let fleet: Fleet;
let allowed: Server;
let other: Server;

describe("an allow-listed computer on the image (docker host, no sandbox, as in production)", () => {
  beforeAll(async () => {
    allowed = await listenWith("allowed");
    other = await listenWith("other");
    fleet = await startDockerFleet();
    client.fleet = fleet;
    const res = await createAllowListed(client, [`127.0.0.1:${portOf(allowed)}`]);
    expect(res.status).toBe(201);
  });

  afterAll(async () => {
    await fleet?.stop();
    allowed?.close();
    other?.close();
  });

  it("reaches the allowed host through the proxy only; 403 for another, no route, no way back", async () => {
    const result = await client.exec(
      [
        'echo "uid=$(id -u) proxy=$HTTPS_PROXY"',
        // Both servers are on the host's 127.0.0.1, which NO_PROXY keeps off the proxy.
        "export NO_PROXY= no_proxy=",
        `curl -sS --max-time 20 http://127.0.0.1:${portOf(allowed)}/; echo`,
        `curl -sS --max-time 20 -w ' other=%{http_code}\\n' http://127.0.0.1:${portOf(other)}/`,
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${portOf(other)}/ >/dev/null 2>&1 && echo direct=reached || echo direct=refused`,
        `python3 -c 'import socket; socket.create_connection(("192.0.2.1", 80), timeout=5)' 2>&1 | grep -o 'Network is unreachable' || echo route=exists`,
        "nsenter --net=/proc/1/ns/net true 2>/dev/null && echo rejoin=yes || echo rejoin=refused",
      ].join("\n"),
    );
    expectCompleted(result);
    expect(result.stdout).toContain("uid=0 proxy=http://127.0.0.1:3128\n");
    expect(result.stdout).toContain("allowed\n");
    expect(result.stdout).toContain(`egress to 127.0.0.1:${portOf(other)} is not allowed`);
    expect(result.stdout).toContain(" other=403\n");
    expect(result.stdout).toContain("direct=refused\n");
    expect(result.stdout).toContain("Network is unreachable\n");
    expect(result.stdout).toContain("rejoin=refused\n");
  });
});
