/**
 * Feeds an exec's output into an ExecSink (the Durable Object's, over the link): in seq
 * order, with a window of unacknowledged bytes so a slow link pauses the command instead of
 * piling up, then `exit`. Takes its own duplicate of a capnweb stub and disposes it at the end.
 */
import type { StoredExec } from "../exec/exec-log-file.ts";
import { Exec } from "../exec/runner.ts";
import { type ExecSink, toExecExit } from "../exec/types.ts";

/** Output bytes sent to a sink and not yet acknowledged before the pump waits. */
export const SINK_WINDOW_BYTES = 256 * 1024;

interface Disposable {
  dup?: () => unknown;
  onRpcBroken?: (callback: (error: unknown) => void) => void;
  [Symbol.dispose]?: () => void;
}

/** Calls `callback` once the session `sink` came over breaks (a local sink never breaks). */
export function onSinkBroken(sink: ExecSink, callback: () => void): void {
  const stub = sink as ExecSink & Disposable;
  if (typeof stub.onRpcBroken === "function") stub.onRpcBroken(() => callback());
}

/**
 * A sink that outlives the RPC call it arrived in: capnweb disposes stubs passed as
 * parameters when the call returns, so keep a duplicate (a local object is used as is).
 */
export function retainSink(sink: ExecSink): ExecSink {
  const stub = sink as ExecSink & Disposable;
  return typeof stub.dup === "function" ? (stub.dup() as ExecSink) : sink;
}

function release(sink: ExecSink): void {
  const stub = sink as ExecSink & Disposable;
  if (typeof stub[Symbol.dispose] === "function") stub[Symbol.dispose]?.();
}

/**
 * Sends the events after `afterSeq` and then the exit to `sink`, which it disposes when done.
 * Resolves true when all was delivered, false when the sink failed (the link dropped): the
 * command goes on, and a new link can `attach` again.
 */
export async function pumpToSink(
  source: Exec | StoredExec,
  sink: ExecSink,
  afterSeq = -1,
  windowBytes = SINK_WINDOW_BYTES,
): Promise<boolean> {
  let failed = false;
  const inflight: { done: Promise<void>; bytes: number }[] = [];
  let inflightBytes = 0;
  const send = async (call: () => unknown): Promise<void> => {
    try {
      await call();
    } catch {
      failed = true;
    }
  };
  const id = source instanceof Exec ? source.id : source.result?.id;
  const reader = source instanceof Exec ? source.log.reader(afterSeq, true) : undefined;
  const stored = source instanceof Exec ? [] : source.events.filter((event) => event.seq > afterSeq);
  try {
    if (id === undefined) return false;
    for (;;) {
      const event = reader ? await reader.next() : stored.shift();
      if (!event || failed) break;
      const bytes = event.data.length;
      inflight.push({ done: send(() => sink.output(id, event.seq, event.stream, event.data)), bytes });
      inflightBytes += bytes;
      while (inflightBytes > windowBytes && !failed) {
        const oldest = inflight.shift();
        if (!oldest) break;
        await oldest.done;
        inflightBytes -= oldest.bytes;
      }
    }
    await Promise.all(inflight.map((entry) => entry.done));
    const result = source instanceof Exec ? source.log.result : source.result;
    if (failed || !result) return false;
    await send(() => sink.exit(toExecExit(result)));
    return !failed;
  } finally {
    reader?.close();
    release(sink);
  }
}
