/**
 * An allow-list's network for commands, both ways it is made (needs root, bubblewrap, curl and
 * util-linux; CI has them): in bubblewrap (`make dev`) and without a sandbox through `unshare`
 * (the production container). Either way a command reaches the allowed server on the host's
 * 127.0.0.1 through HTTPS_PROXY, gets a 403 with the reason for another, and nothing directly:
 * neither the host's loopback nor any address (no route). The unsandboxed command, root, cannot
 * join the daemon's network again. The servers are the egress fixture's, on 127.0.0.1.
 */
import { chmodSync } from "node:fs";
import { canRun, hasCommand } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testConfig } from "../../test/server-harness.ts";
import type { Config } from "../config.ts";
import { type EgressFixture, startEgressFixture } from "../egress/egress-fixture.ts";
import { type CommandNetwork, startCommandNetwork } from "./command-network.ts";
import { execTableFor } from "./daemon.ts";

const capable = canRun("the egress namespace", [
  ...(process.getuid?.() === 0 ? [] : ["root"]),
  ...["bwrap", "curl", "unshare", "nsenter", "setpriv"].filter((command) => !hasCommand(command)),
]);

let fixture: EgressFixture;

beforeAll(async () => {
  if (capable) fixture = await startEgressFixture("command-network-");
});

afterAll(() => fixture?.close());

/** Runs `command` under `config` in the network it asks for. */
async function run(net: CommandNetwork, config: Config, command: string): Promise<string> {
  const table = execTableFor(config, process.env, [], net);
  const result = await table.start({ command, cwd: "/" }).done;
  expect(result.status, result.stderr).toBe("completed");
  return result.stdout;
}

/** The checks every allow-listed command passes, as one script. */
function probes(): string {
  const allowed = `http://127.0.0.1:${fixture.allowedPort}/`;
  const other = `http://127.0.0.1:${fixture.otherPort}/`;
  return [
    'echo "proxy=$HTTPS_PROXY no_proxy=$NO_PROXY"',
    // The fixture's servers are on the host's 127.0.0.1, which NO_PROXY keeps off the proxy.
    "export NO_PROXY= no_proxy=",
    `curl -sS --max-time 20 ${allowed}; echo`,
    `curl -sS --max-time 20 -w ' other=%{http_code}\\n' ${other}`,
    `curl -sS --max-time 5 --noproxy '*' ${allowed} >/dev/null 2>&1 && echo loopback=reached || echo loopback=refused`,
    // TEST-NET-1 (RFC 5737): with no route the connect fails at once, no packet is sent.
    `python3 -c 'import socket; socket.create_connection(("192.0.2.1", 80), timeout=5)' 2>&1 | grep -o 'Network is unreachable' || echo route=exists`,
  ].join("\n");
}

describe.skipIf(!capable)("an allow-list's command network", () => {
  const expectEnforced = (out: string) => {
    expect(out).toContain("proxy=http://127.0.0.1:3128 no_proxy=localhost,127.0.0.1,::1\n");
    expect(out).toContain("allowed GET /\n");
    expect(out).toContain(
      `egress to 127.0.0.1:${fixture.otherPort} is not allowed by this computer's egress policy\n other=403\n`,
    );
    expect(out).toContain("loopback=refused\n");
    expect(out).toContain("Network is unreachable\n");
  };

  test("bubblewrap (make dev): the allowed host through the proxy, a 403 for another, nothing directly", async () => {
    const config = testConfig({ execSandbox: "bwrap", egressAllow: `127.0.0.1:${fixture.allowedPort}` });
    chmodSync(config.mountPoint, 0o755);
    const net = await startCommandNetwork(config);
    try {
      expectEnforced(await run(net, config, probes()));
    } finally {
      await net.close();
    }
  });

  test("no sandbox (the production container): the same, and root cannot rejoin the daemon's network", async () => {
    const config = testConfig({ egressAllow: `127.0.0.1:${fixture.allowedPort}` });
    const net = await startCommandNetwork(config);
    try {
      const out = await run(
        net,
        config,
        [
          probes(),
          'echo "uid=$(id -u)"',
          // This process is the daemon: its network is the one the command must not rejoin.
          `nsenter --net=/proc/${process.pid}/ns/net true 2>/dev/null && echo rejoin=yes || echo rejoin=refused`,
          "unshare --net true 2>/dev/null && echo unshare=yes || echo unshare=refused",
        ].join("\n"),
      );
      expectEnforced(out);
      expect(out).toContain("uid=0\nrejoin=refused\nunshare=refused\n");
    } finally {
      await net.close();
    }
  });

  test("the relay is the namespace's, started with it before any command and gone with it", async () => {
    const config = testConfig({ execSandbox: "bwrap", egressAllow: `127.0.0.1:${fixture.allowedPort}` });
    chmodSync(config.mountPoint, 0o755);
    const net = await startCommandNetwork(config);
    const network = net.network;
    if (network === undefined) throw new Error("no namespace");
    const before = await network.connect(3128);
    before.destroy();
    const out = await run(
      net,
      config,
      `python3 -c "import socket; socket.socket().bind(('127.0.0.1', 3128))" 2>&1 | grep -o 'Address already in use'`,
    );
    expect(out).toBe("Address already in use\n");
    await net.close();
    await expect(network.connect(3128)).rejects.toMatchObject({ code: "EUNAVAILABLE" });
  });

  test("egress none without an allow-list and no sandbox: the daemon's network (the platform confines it)", async () => {
    const net = await startCommandNetwork(testConfig());
    expect(net.network).toBeUndefined();
    expect(net.env).toEqual({});
  });
});
