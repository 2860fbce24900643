/**
 * A Server-Sent Events response that respects the socket: `send` resolves once the event is
 * handed to the kernel, or once the client has gone, so a slow client slows its producer.
 */
import type { ServerResponse } from "node:http";

/** One SSE response. */
export class SseStream {
  readonly #res: ServerResponse;
  #closed = false;

  constructor(res: ServerResponse) {
    this.#res = res;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
    res.on("close", () => {
      this.#closed = true;
    });
  }

  /** True once the client has gone or `end` was called. */
  get closed(): boolean {
    return this.#closed || this.#res.destroyed;
  }

  /** Calls `listener` once when the client goes away. */
  onClose(listener: () => void): void {
    this.#res.once("close", listener);
  }

  /** Sends one event (`data` as JSON); resolves when the socket can take more. */
  async send(event: string, data: unknown, id?: number): Promise<void> {
    if (this.closed) return;
    const head = id === undefined ? "" : `id: ${id}\n`;
    if (this.#res.write(`${head}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#res.off("drain", done);
        this.#res.off("close", done);
        resolve();
      };
      this.#res.on("drain", done);
      this.#res.on("close", done);
    });
  }

  /** Ends the response. */
  end(): void {
    if (this.closed) return;
    this.#closed = true;
    this.#res.end();
  }
}
