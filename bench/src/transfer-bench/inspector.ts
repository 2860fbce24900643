/**
 * A minimal client of the V8 inspector protocol (Chrome DevTools Protocol) over a WebSocket:
 * wrangler dev's inspector proxy (`ws://127.0.0.1:<port>/ws`, the Worker's isolate, where the
 * Durable Objects run) or workerd's own `--inspector-addr`. One request at a time or many,
 * each answered by its id.
 */

/** An open inspector session. */
export interface Inspector {
  /** Sends `method` with `params`; resolves with its result, rejects with its error. */
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  close(): void;
}

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
  socket.addEventListener("close", () => {
    for (const waiter of pending.values()) waiter.reject(new Error("the inspector closed"));
    pending.clear();
  });
  return {
    call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const id = ++lastId;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close() {
      socket.close();
    },
  };
}

/** The inspector URL of `wrangler dev` started with `--inspector-port <port>`. */
export function wranglerInspectorUrl(port: number): string {
  return `ws://127.0.0.1:${port}/ws`;
}
