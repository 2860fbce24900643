/**
 * Test support for the egress proxy: two HTTP servers on 127.0.0.1 (one allowed, one not) and
 * a proxy on a unix socket in a fresh folder whose policy admits only the first one's port.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EgressProxy, startEgressProxy } from "./egress-proxy.ts";

/** The servers and the proxy in front of them. */
export interface EgressFixture {
  /** The fixture's folder (0711: a sandbox user may pass it to the socket). */
  dir: string;
  socketPath: string;
  allowedPort: number;
  otherPort: number;
  proxy: EgressProxy;
  close(): Promise<void>;
}

/** A server answering `<name> <method> <url>`. */
async function listen(name: string): Promise<Server> {
  const server = createServer((req, res) => res.end(`${name} ${req.method} ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** Starts the servers and the proxy. */
export async function startEgressFixture(prefix: string): Promise<EgressFixture> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o711);
  const socketPath = join(dir, "proxy.sock");
  const allowed = await listen("allowed");
  const other = await listen("other");
  const allowedPort = (allowed.address() as AddressInfo).port;
  const proxy = await startEgressProxy({ allow: [`127.0.0.1:${allowedPort}`] }, socketPath);
  return {
    dir,
    socketPath,
    allowedPort,
    otherPort: (other.address() as AddressInfo).port,
    proxy,
    async close() {
      await proxy.close();
      allowed.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
