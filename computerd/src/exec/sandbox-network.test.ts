/**
 * The sandbox network (needs root and bubblewrap; CI has both): commands joined to it share
 * one loopback, unreachable from the host's; the daemon reaches its ports through the bridge;
 * a port nothing listens on is ECONNREFUSED.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { canRun } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testTable } from "../../test/exec-harness.ts";
import { connectLoopback } from "./loopback.ts";
import { SandboxNetwork } from "./sandbox-network.ts";
import { plainShell } from "./wrapper.ts";

function hasBwrap(): boolean {
  try {
    execFileSync("bwrap", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const capable = canRun("the sandbox network", [
  ...(process.getuid?.() === 0 ? [] : ["root"]),
  ...(hasBwrap() ? [] : ["bubblewrap"]),
]);

/** Waits up to argv[2] seconds for process argv[1] to exit (a pidfd's poll). */
const PIDFD_WAIT = [
  "import os, select, sys",
  "fd = os.pidfd_open(int(sys.argv[1]))",
  'print("waiting", flush=True)',
  'print("ended" if select.select([fd], [], [], float(sys.argv[2]))[0] else "alive", flush=True)',
].join("\n");

function httpGet(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.on("data", (chunk) => {
      text += String(chunk);
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
    socket.write(`GET ${path} HTTP/1.0\r\nHost: localhost\r\n\r\n`);
  });
}

describe.skipIf(!capable)("sandbox network", () => {
  let network: SandboxNetwork;
  // Any port: the namespace is fresh, nothing else listens in it.
  const port = 20000 + Math.floor(Math.random() * 20000);

  beforeAll(async () => {
    network = await SandboxNetwork.start();
  });

  afterAll(() => {
    network?.close();
  });

  test("a server one command starts is reached by the next command and by the daemon, not the host", async () => {
    const table = testTable({ wrapper: network.wrap(plainShell) });
    const server = table.start({
      command: `exec python3 -c "
import http.server, socketserver
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b'in the sandbox')
socketserver.TCPServer(('127.0.0.1', ${port}), H).serve_forever()"`,
      detached: true,
    });
    const deadline = Date.now() + 10_000;
    let socket: Socket | undefined;
    while (socket === undefined && Date.now() < deadline) {
      socket = await network.connect(port).catch(() => undefined);
      if (socket === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (socket === undefined) throw new Error("the server never listened");
    expect(await httpGet(socket, "/")).toMatch(/in the sandbox$/);
    const client = await table.start({
      command: `python3 -c "import urllib.request; print(urllib.request.urlopen('http://localhost:${port}/').read().decode())"`,
    }).done;
    expect(client.stdout).toBe("in the sandbox\n");
    await expect(connectLoopback(port)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    table.kill(server.id);
    await server.done;
  });

  test("an unprivileged command binds a port below 1024 (root of a computer's namespace does)", async () => {
    const asNobody: typeof plainShell = (input) => ({ ...plainShell(input), uid: 65534, gid: 65534 });
    const table = testTable({ wrapper: network.wrap(asNobody) });
    const bound = await table.start({
      command: `python3 -c "import socket, os; s = socket.socket(); s.bind(('127.0.0.1', 80)); print(os.getuid())"`,
      cwd: "/",
    }).done;
    expect(bound, bound.stderr).toMatchObject({ status: "completed", stdout: "65534\n" });
  });

  test("the bridge starts with the first connect: a new namespace's commands run without it", async () => {
    const fresh = await SandboxNetwork.start();
    try {
      expect(fresh.bridgeStarted).toBe(false);
      const asNobody: typeof plainShell = (input) => ({ ...plainShell(input), uid: 65534, gid: 65534 });
      const bound = await testTable({ wrapper: fresh.wrap(asNobody) }).start({
        command: `python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 80)); print('bound')"`,
        cwd: "/",
      }).done;
      expect(bound, bound.stderr).toMatchObject({ status: "completed", stdout: "bound\n" });
      expect(fresh.bridgeStarted).toBe(false);
      await expect(fresh.connect(port)).rejects.toMatchObject({ code: "ECONNREFUSED" });
      expect(fresh.bridgeStarted).toBe(true);
    } finally {
      fresh.close();
    }
    await expect(fresh.connect(port)).rejects.toMatchObject({ code: "EUNAVAILABLE" });
  });

  test.each(["bwrap", "unshare"] as const)(
    "the namespace's holder ends with a daemon killed outright (%s)",
    async (isolation) => {
      const module = new URL("./sandbox-network.ts", import.meta.url).href;
      const daemon = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { SandboxNetwork } = await import(${JSON.stringify(module)});
           const network = await SandboxNetwork.start({ isolation: ${JSON.stringify(isolation)} });
           console.log(network.path.split("/")[2]);
           setInterval(() => undefined, 1000);`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const holder = Number(
        await new Promise<string>((resolve) =>
          createInterface({ input: daemon.stdout }).once("line", resolve),
        ),
      );
      expect(existsSync(`/proc/${holder}`)).toBe(true);
      // The holder is not our child: a pidfd (Python's os.pidfd_open) turns readable when it
      // exits, zombie or not; the waiter says "waiting" once it holds one, "ended" or "alive".
      const waiter = spawn("python3", ["-c", PIDFD_WAIT, String(holder), "5"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const words = createInterface({ input: waiter.stdout })[Symbol.asyncIterator]();
      expect((await words.next()).value).toBe("waiting");
      daemon.kill("SIGKILL");
      expect((await words.next()).value).toBe("ended");
    },
    20_000,
  );

  test("a port nothing listens on is ECONNREFUSED", async () => {
    await expect(network.connect(port + 1)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  test("the host's own loopback is not in it", async () => {
    const host = await new Promise<Server>((resolve) => {
      const server = createServer((s) => s.end("host"));
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
    const address = host.address();
    const hostPort = typeof address === "object" && address !== null ? address.port : 0;
    await expect(network.connect(hostPort)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    host.close();
  });
});
