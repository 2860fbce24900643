/**
 * A minimal client of the V8 inspector protocol (Chrome DevTools Protocol) over a WebSocket:
 * workerd's own inspector (the fleet's `inspectorUrl`: the Worker's isolate, where the Durable
 * Objects run) or wrangler dev's inspector proxy (`ws://127.0.0.1:<port>/ws`). One request at a time or many,
 * each answered by its id.
 */

/** An open inspector session. */
export interface Inspector {
  /** Sends `method` with `params`; resolves with its result, rejects with its error. */
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Resolves once the socket has closed (the fleet stopped, or close()). */
  readonly closed: Promise<void>;
  close(): void;
}

/** How long a call waits for its answer (Profiler.stop of a long profile takes seconds). */
const CALL_TIMEOUT_MS = 60_000;

/** Connects to `url`; undefined when it does not open within `timeoutMs`. */
export async function connectInspector(url: string, timeoutMs = 10_000): Promise<Inspector | undefined> {
  // wrangler's inspector proxy wants a local Origin from a client that sends a User-Agent.
  const init = { headers: { Origin: "http://localhost" } } as unknown as string[];
  const socket = new WebSocket(url, init);
  const opened = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    socket.addEventListener("open", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.addEventListener("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!opened) {
    socket.close();
    return undefined;
  }
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let lastId = 0;
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message?: string };
    };
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message ?? JSON.stringify(message.error)));
    else waiter.resolve(message.result);
  });
  const closed = new Promise<void>((resolve) =>
    socket.addEventListener("close", () => {
      for (const waiter of pending.values()) waiter.reject(new Error("the inspector closed"));
      pending.clear();
      resolve();
    }),
  );
  return {
    closed,
    call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const id = ++lastId;
      return new Promise<T>((resolve, reject) => {
        // A socket whose peer went away without a close (the fleet was killed) never answers.
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer from the inspector`));
        }, CALL_TIMEOUT_MS);
        const settle =
          <V>(done: (value: V) => void) =>
          (value: V) => {
            clearTimeout(timer);
            done(value);
          };
        pending.set(id, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject) });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close() {
      socket.close();
    },
  };
}
