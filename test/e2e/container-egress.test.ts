/**
 * An allow-list on the container runtime of `make dev` (`computerd host`, bubblewrap): the
 * sandbox keeps a network namespace of its own, and its only way out is the host's egress
 * proxy (HTTPS_PROXY), which admits the listed host:port and refuses another with a 403.
 * Both servers listen on the host's 127.0.0.1. docs/THREAT_MODEL.md cites this test. Needs
 * root, /dev/fuse and bubblewrap (never skips).
 */
import type { Server } from "node:http";
import { type Fleet, startFleet } from "@computer/fleet";
import { containerMissing } from "@computer/fleet/capabilities";
import { ContractClient } from "@computer/fleet/container-contract";
import { createAllowListed, listenWith, portOf } from "@computer/fleet/egress-fixture";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const client = new ContractClient("egress-allow");
let fleet: Fleet;
let allowed: Server;
let other: Server;

describe("container egress allow-list (computerd host, bubblewrap)", () => {
  beforeAll(async () => {
    const missing = containerMissing();
    if (missing.length > 0) throw new Error(`this suite needs ${missing.join(", ")}; it does not skip`);
    allowed = await listenWith("hello from allowed\n");
    other = await listenWith("hello from other\n");
    fleet = await startFleet({ computerdHost: true });
    client.fleet = fleet;
    const res = await createAllowListed(client, [`127.0.0.1:${portOf(allowed)}`]);
    expect(res.status).toBe(201);
  }, 600_000);

  afterAll(async () => {
    await fleet?.stop();
    allowed?.close();
    other?.close();
  });

  it("curl reaches the allowed host through the proxy, another host is refused with 403, nothing bypasses it", async () => {
    const result = await client.exec(
      [
        'echo "proxy=$HTTPS_PROXY"',
        // Both servers are on the host's 127.0.0.1, which NO_PROXY keeps off the proxy.
        "export NO_PROXY= no_proxy=",
        `curl -sS --max-time 20 http://127.0.0.1:${portOf(allowed)}/`,
        `curl -sS --max-time 20 -o /dev/null -w 'other=%{http_code}\\n' http://127.0.0.1:${portOf(other)}/ || true`,
        `curl -sS --max-time 20 -p -o /dev/null http://127.0.0.1:${portOf(other)}/ 2>&1 || true`,
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${portOf(other)}/ >/dev/null 2>&1 && echo direct=reached || echo direct=refused`,
        // TEST-NET-1 (RFC 5737): with no route out the connect fails at once, nothing is sent.
        `python3 -c 'import socket; socket.create_connection(("192.0.2.1", 80), timeout=5)' 2>&1 | grep -o 'Network is unreachable' || echo route=exists`,
      ].join("\n"),
    );
    expect(result.status, JSON.stringify(result)).toBe("completed");
    expect(result.stdout).toContain("proxy=http://127.0.0.1:3128");
    expect(result.stdout).toContain("hello from allowed");
    expect(result.stdout).not.toContain("hello from other");
    expect(result.stdout).toContain("other=403");
    expect(result.stdout).toMatch(/CONNECT tunnel failed, response 403/);
    expect(result.stdout).toContain("direct=refused");
    expect(result.stdout).toContain("Network is unreachable");
  });
});
