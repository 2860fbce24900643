/**
 * What a spare runs once before it is taken (spare.ts), so the computer's first requests do
 * not pay for compiling the code they take: one HTTP exchange with itself over loopback, as
 * server (the host's health check, the DO's /connect) and as client (the dial-back's upgrade),
 * which compiles Node's HTTP paths (the parse of a request's headers alone took 10–20 ms of a
 * new daemon's first request in a CPU profile here). It touches nothing of any computer.
 */
import { createServer, get } from "node:http";
import type { AddressInfo } from "node:net";

/** One request to a throwaway server of its own; never throws (it only warms code). */
export async function rehearseHttp(): Promise<void> {
  const server = createServer((req, res) => {
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ ok: true, path: req.url }));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const req = get(
        { host: "127.0.0.1", port, path: "/health", agent: false, headers: { Authorization: "Bearer x" } },
        (res) => {
          res.resume();
          res.once("end", resolve);
        },
      );
      req.once("error", () => resolve());
    });
  } catch {
    // Nothing to warm then: the daemon compiles it on its first request.
  } finally {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }
}
