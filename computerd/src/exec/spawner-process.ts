/**
 * The spawner: a small process computerd starts once (spawner.ts) that spawns its commands for
 * it. A spawn forks the process that asks: Linux copies the page tables of all its memory,
 * ~55 µs per MiB here, so a daemon whose mirror, caches and buffers hold hundreds of MiB paid
 * tens of ms per command (60 ms at 1 GiB) where this process, a bare Node, pays ~2 ms. It runs
 * our code only and holds nothing but the channel: asked `{ id, argv, env, uid?, gid?, stdin }`,
 * it spawns exactly that plan (cwd `/`, its own process group), hands the command's stdout,
 * stderr (and stdin) back over the channel, so computerd reads the pipes themselves, and
 * reports the pid and the exit. It exits when computerd's channel closes; commands sandboxed
 * with `--die-with-parent` go with it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";

/** What computerd asks: one spawn plan (wrapper.ts SpawnPlan, after the wrapper). */
export interface SpawnRequest {
  id: number;
  argv: [string, ...string[]];
  env: Record<string, string>;
  uid?: number;
  gid?: number;
  /** Whether the command gets a stdin pipe (else /dev/null). */
  stdin: boolean;
}

/** What the spawner answers, in this order per request; pipes travel as the handle of theirs. */
export type SpawnReply =
  | { id: number; type: "pid"; pid: number }
  | { id: number; type: "pipe"; stream: "stdin" | "stdout" | "stderr" }
  | { id: number; type: "exit"; code: number | null; signal: NodeJS.Signals | null }
  | { id: number; type: "error"; message: string };

function isRequest(value: unknown): value is SpawnRequest {
  const v = value as Partial<SpawnRequest> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.id === "number" &&
    Array.isArray(v.argv) &&
    v.argv.length > 0 &&
    typeof v.env === "object"
  );
}

function send(reply: SpawnReply, handle?: Socket): void {
  if (process.connected) process.send?.(reply, handle);
}

/** Stops the libuv reads of `socket` (Node's own handle call; the socket stays open). */
function stopReading(socket: Socket | null): void {
  const handle = (socket as (Socket & { _handle?: { readStop?(): number; reading?: boolean } }) | null)
    ?._handle;
  if (handle?.readStop) {
    handle.reading = false;
    handle.readStop();
  }
}

function start(request: SpawnRequest): void {
  const [file, ...args] = request.argv;
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: "/",
      env: request.env,
      detached: true,
      stdio: [request.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      ...(request.uid === undefined ? {} : { uid: request.uid }),
      ...(request.gid === undefined ? {} : { gid: request.gid }),
    });
  } catch (error) {
    send({ id: request.id, type: "error", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  // Not one byte is read here: a pipe's socket starts reading as soon as it exists, and what
  // it read would stay behind when its handle goes to computerd. Stopped in this tick, before
  // the loop has polled it, nothing was read. (pause() alone only stops the stream's flow.)
  for (const pipe of [child.stdout, child.stderr]) stopReading(pipe as Socket | null);
  const { id } = request;
  child.on("error", (error) => {
    if (child.pid === undefined) send({ id, type: "error", message: error.message });
  });
  if (child.pid === undefined) return;
  send({ id, type: "pid", pid: child.pid });
  for (const stream of ["stdin", "stdout", "stderr"] as const) {
    const pipe = child[stream] as Socket | null;
    // Handed over, the pipe is closed here (computerd holds the only copy).
    if (pipe) send({ id, type: "pipe", stream }, pipe);
  }
  child.on("exit", (code, signal) => send({ id, type: "exit", code, signal }));
}

process.on("message", (message: unknown) => {
  if (isRequest(message)) start(message);
});
// computerd is gone: so is the spawner (and, with it, the sandboxes that die with their parent).
process.on("disconnect", () => process.exit(0));
send({ id: 0, type: "pid", pid: process.pid });
