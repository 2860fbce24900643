/**
 * The egress suites' shared setup (test/e2e/container-egress.test.ts on `computerd host`,
 * images/test/image-egress.test.ts on the image): HTTP servers on the host's 127.0.0.1 for a
 * command to reach or be refused, and a computer whose allow-list names one of them.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ContractClient } from "./container-contract.ts";

/** The port a listening server got. */
export const portOf = (server: Server): number => (server.address() as AddressInfo).port;

/** A server on 127.0.0.1 (a free port) that answers every request with `body`. */
export async function listenWith(body: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** Creates the client's computer with egress limited to `allow`; the API's answer. */
export function createAllowListed(client: ContractClient, allow: string[]): Promise<Response> {
  return fetch(client.url(""), {
    method: "PUT",
    headers: { ...client.auth(), "Content-Type": "application/json" },
    body: JSON.stringify({ egress: { allow } }),
  });
}
