/**
 * The port bridge: a process that lives in a computer's sandbox network namespace, joined to it
 * by sandbox-network.ts (through port-bridge-client.ts, with an IPC channel) on the daemon's
 * first connect. Asked `{ id, port }`, it connects to that port on the namespace's loopback and
 * hands the connected socket back over the channel (a file descriptor crosses namespaces; the
 * socket stays in the one it was made in), or answers the error code.
 * It runs our code only, never a user's, and holds nothing but the channel. Given the path of
 * the daemon's egress proxy socket (an allow-list), it also serves the egress relay on the
 * namespace's 127.0.0.1:3128 (egress-relay.ts), once for every command of the computer.
 */
import type { Socket } from "node:net";
import { startEgressRelay } from "../egress/egress-relay.ts";
import { connectLoopback } from "./loopback.ts";

/** What the daemon asks. */
export interface BridgeRequest {
  id: number;
  port: number;
}

/** What the bridge answers (with the socket as the handle when `ok`). */
export type BridgeReply = { id: number; ok: true } | { id: number; ok: false; code: string };

/** The first message: the bridge's pid, whose `/proc/<pid>/ns/net` commands join. */
export interface BridgeReady {
  ready: true;
  pid: number;
}

function isRequest(value: unknown): value is BridgeRequest {
  if (typeof value !== "object" || value === null) return false;
  const { id, port } = value as Record<string, unknown>;
  return typeof id === "number" && typeof port === "number";
}

async function serve(
  send: (message: BridgeReply | BridgeReady, handle?: Socket) => void,
  egressSocket: string | undefined,
): Promise<void> {
  process.on("message", (message: unknown) => {
    if (!isRequest(message)) return;
    connectLoopback(message.port).then(
      // connectLoopback never read from it: every byte is the daemon's.
      (socket) => send({ id: message.id, ok: true }, socket),
      (error: NodeJS.ErrnoException) => send({ id: message.id, ok: false, code: error.code ?? "EIO" }),
    );
  });
  // The daemon went away (the channel closed): so does the bridge.
  process.on("disconnect", () => process.exit(0));
  if (egressSocket !== undefined) await startEgressRelay(egressSocket);
  send({ ready: true, pid: process.pid });
}

if (process.send !== undefined && process.argv[1] === new URL(import.meta.url).pathname) {
  const channel = process.send.bind(process);
  void serve((message, handle) => {
    channel(message, handle);
  }, process.argv[2]);
}
