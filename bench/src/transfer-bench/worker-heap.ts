/**
 * The JS heap of the Worker's isolate under `wrangler dev` (the Worker and its Durable Objects),
 * from the devtools inspector: `Runtime.getHeapUsage` every `everyMs`, keeping the peak. This
 * is what a production Durable Object's 128 MB limit applies to; workerd's RSS (process-memory.ts)
 * also counts the runtime, SQLite and both of wrangler's workerd processes.
 */

/** Peak of the heap's used bytes; `mark()` answers the peak since the previous mark. */
export interface HeapSampler {
  mark(): number;
  stop(): number;
}

/** Connects to the inspector on `port`; undefined when it does not answer within `timeoutMs`. */
export async function sampleWorkerHeap(
  port: number,
  everyMs = 200,
  timeoutMs = 10_000,
): Promise<HeapSampler | undefined> {
  // wrangler's inspector proxy wants a local Origin from a client that sends a User-Agent.
  const init = { headers: { Origin: "http://localhost" } } as unknown as string[];
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, init);
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
  let peak = 0;
  let sincePeak = 0;
  let id = 0;
  socket.addEventListener("message", (event) => {
    const used = (JSON.parse(String(event.data)) as { result?: { usedSize?: number } }).result?.usedSize;
    if (used === undefined) return;
    peak = Math.max(peak, used);
    sincePeak = Math.max(sincePeak, used);
  });
  const ask = () => socket.send(JSON.stringify({ id: ++id, method: "Runtime.getHeapUsage" }));
  ask();
  const timer = setInterval(ask, everyMs);
  return {
    mark() {
      const answer = sincePeak;
      sincePeak = 0;
      return answer;
    },
    stop() {
      clearInterval(timer);
      socket.close();
      return peak;
    },
  };
}
