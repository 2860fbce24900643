/**
 * How commands under an allow-list reach the egress proxy (egress-proxy.ts): their network
 * namespace (sandbox-network.ts) has only a loopback, so the port bridge holding it runs this
 * relay, once per namespace: it listens on 127.0.0.1:EGRESS_PORT there and pipes each
 * connection to the proxy's unix socket (a path, not an address: the daemon's network serves
 * it). Commands find it in HTTP(S)_PROXY (npm, curl, pip, git honour them).
 */
import { connect, createServer, type Server } from "node:net";

/** The proxy's port on the namespace's loopback. */
export const EGRESS_PORT = 3128;

const PROXY_URL = `http://127.0.0.1:${EGRESS_PORT}`;

/** The proxy variables every command under an allow-list starts with. */
export const PROXY_ENV: Readonly<Record<string, string>> = {
  HTTPS_PROXY: PROXY_URL,
  HTTP_PROXY: PROXY_URL,
  https_proxy: PROXY_URL,
  http_proxy: PROXY_URL,
};

/** Listens on 127.0.0.1:EGRESS_PORT of the current network and relays to `socketPath`. */
export function startEgressRelay(socketPath: string): Promise<Server> {
  const server = createServer((client) => {
    const upstream = connect(socketPath);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(EGRESS_PORT, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
