/**
 * The live change feed (docs/API.md "Change feed"): `computer.watch()`, an async iterable of
 * every change as it happens (`computer.changes()` reads one JSON page). A watch resumes by itself from the cursor of
 * the last change it delivered when its connection drops, so nothing is lost or seen twice; a
 * cursor past the retention throws ComputerError ESTALE (start again from `after: "0"`).
 */
import type { ChangeJson } from "./contract/types.ts";
import { ComputerError } from "./error.ts";
import type { Signal } from "./files.ts";
import { readSse } from "./sse.ts";
import type { Transport } from "./transport.ts";

/** What to watch. */
export interface WatchOptions extends Signal {
  /** A cursor, `"0"` for the whole current tree first, or `"now"` (default) for only what comes. */
  after?: string;
  /** Only changes at or under this workspace path. */
  path?: string;
  /** Called each time the feed has caught up with the present, with the cursor there. */
  onSynced?: (cursor: string) => void;
  /** Pause before reconnecting after a dropped connection (default 1000 ms). */
  reconnectDelayMs?: number;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Opens one SSE connection of the feed from `cursor` and yields its events. */
async function* connection(
  transport: Transport,
  id: string,
  cursor: string,
  options: WatchOptions,
): AsyncGenerator<{ change: ChangeJson } | { synced: string }> {
  const res = await transport.call("changes", {
    params: { id },
    query: { after: cursor, path: options.path },
    headers: { Accept: "text/event-stream" },
    signal: options.signal,
  });
  if (res.body === null)
    throw new ComputerError("EPROTO", "the change feed has no body", { status: res.status });
  for await (const frame of readSse(res.body)) {
    const data = JSON.parse(frame.data) as unknown;
    if (frame.event === "change") yield { change: data as ChangeJson };
    else if (frame.event === "synced") yield { synced: (data as { cursor: string }).cursor };
    else if (frame.event === "error") {
      const error = (data as { error: { code: string; message: string } }).error;
      throw new ComputerError(error.code === "ESTALE" ? "ESTALE" : "EIO", error.message, { status: 410 });
    }
  }
}

/** Every change of computer `id` from `after` on, live, until `signal` aborts or the loop breaks. */
export async function* watchChanges(
  transport: Transport,
  id: string,
  options: WatchOptions = {},
): AsyncGenerator<ChangeJson> {
  let cursor = options.after ?? "now";
  for (;;) {
    try {
      for await (const event of connection(transport, id, cursor, options)) {
        if ("change" in event) {
          cursor = event.change.cursor;
          yield event.change;
        } else {
          cursor = event.synced;
          options.onSynced?.(cursor);
        }
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      // A refused cursor or request is final; a dropped connection is resumed.
      if (err instanceof ComputerError && err.code !== "ECONNREFUSED" && err.code !== "EPROTO") throw err;
      if (!(err instanceof ComputerError) && !(err instanceof TypeError)) throw err;
    }
    if (options.signal?.aborted) return;
    await sleep(options.reconnectDelayMs ?? 1000, options.signal);
    if (options.signal?.aborted) return;
  }
}
