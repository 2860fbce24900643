/**
 * How a sandbox with an allow-list reaches the egress proxy (egress-proxy.ts): its network
 * namespace has only a loopback, so the proxy's unix socket is bound into it at
 * EGRESS_SOCKET, and before the command a tiny forwarder (the sandbox's own `node`) listens on
 * 127.0.0.1:EGRESS_PORT inside and relays each connection to that socket. The command gets
 * HTTP(S)_PROXY pointing there (npm and curl honour them). The forwarder dies with
 * the sandbox (its pid namespace ends with the command). Wraps any sandbox wrapper whose argv
 * has bwrap's `--` before the command (bwrap.ts, rootfs-sandbox.ts).
 */
import type { CommandWrapper } from "../exec/wrapper.ts";

/** Where the proxy's socket appears inside the sandbox. */
export const EGRESS_SOCKET = "/run/computer-egress.sock";
/** The proxy's port on the sandbox's loopback. */
export const EGRESS_PORT = 3128;

/** The forwarder (CommonJS, for whatever Node the sandbox has): argv socket, port, ready file. */
const FORWARDER = [
  'const net = require("node:net");',
  "const [socket, port, ready] = process.argv.slice(1);",
  "net.createServer((client) => {",
  "  const upstream = net.connect(socket);",
  "  client.pipe(upstream).pipe(client);",
  "  client.on('error', () => upstream.destroy());",
  "  upstream.on('error', () => client.destroy());",
  '}).listen(Number(port), "127.0.0.1", () => require("node:fs").writeFileSync(ready, ""));',
].join("\n");

/**
 * Starts the forwarder, waits (up to 5 s) until it listens, then enters the directory and runs
 * the command as ENTER_AND_RUN does. Without node the command still runs, with no way out.
 */
const FORWARD_AND_RUN = [
  "ready=/tmp/.computer-egress-ready.$$",
  'if command -v node >/dev/null 2>&1; then node -e "$3" "$4" "$5" "$ready" </dev/null >/dev/null 2>&1 &',
  '  i=0; while [ ! -e "$ready" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i+1)); done; rm -f "$ready"',
  "fi",
  'cd -- "$1" && exec /bin/sh -c "$2"',
].join("\n");

const PROXY_URL = `http://127.0.0.1:${EGRESS_PORT}`;

/** The proxy variables every command of an allow-listed sandbox starts with. */
export const PROXY_ENV: Readonly<Record<string, string>> = {
  HTTPS_PROXY: PROXY_URL,
  HTTP_PROXY: PROXY_URL,
  https_proxy: PROXY_URL,
  http_proxy: PROXY_URL,
};

/** `wrapper` with the proxy socket at `socketPath` (on the host) reachable from inside. */
export function withEgressProxy(wrapper: CommandWrapper, socketPath: string): CommandWrapper {
  return (input) => {
    const plan = wrapper(input);
    const split = plan.argv.indexOf("--");
    if (split < 0) throw new Error("the egress proxy needs a bwrap sandbox (no `--` in its argv)");
    const sandbox = plan.argv.slice(0, split);
    const run = [
      "/bin/sh",
      "-c",
      FORWARD_AND_RUN,
      "computerd-exec",
      input.cwd,
      input.command,
      FORWARDER,
      EGRESS_SOCKET,
      String(EGRESS_PORT),
    ];
    return {
      ...plan,
      argv: [...(sandbox as [string, ...string[]]), "--bind", socketPath, EGRESS_SOCKET, "--", ...run],
      env: { ...plan.env, ...PROXY_ENV },
    };
  };
}
