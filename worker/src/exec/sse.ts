/**
 * Server-Sent Events for exec output (docs/API.md): `stdout`/`stderr` events carrying
 * `{"seq","data"}` (with `id: <seq>`, so an EventSource resumes with Last-Event-ID), then
 * exactly one `exit` event with the result object, then the stream ends.
 */
import type { ExecResult, OutputEvent } from "./journal.ts";

const encoder = new TextEncoder();

/** What an exec stream delivers: output pieces, then its end. */
export type ExecEvent = { kind: "output"; event: OutputEvent } | { kind: "exit"; result: ExecResult };

/** One SSE frame. */
export function sseFrame(event: ExecEvent): string {
  if (event.kind === "exit") return `event: exit\ndata: ${JSON.stringify(event.result)}\n\n`;
  const { seq, stream, data } = event.event;
  return `id: ${seq}\nevent: ${stream}\ndata: ${JSON.stringify({ seq, data })}\n\n`;
}

/** A source of exec events for one stream: replays, then pushes live events until exit. */
export interface ExecEventSource {
  /**
   * Starts delivery into `push`; returns a function that stops it (the client went away).
   * The source must call `push` with an exit event last.
   */
  open(push: (event: ExecEvent) => void): () => void;
}

/** True when the client asked for an event stream. */
export function wantsEventStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/** The seq to resume after: `?after=`, else a `Last-Event-ID` header, else -1 (from the start). */
export function resumeAfter(after: number | undefined, request: Request): number {
  if (after !== undefined) return after;
  const last = request.headers.get("last-event-id");
  if (last !== null && /^\d{1,15}$/.test(last)) return Number(last);
  return -1;
}

/** An SSE response fed by `source`. */
export function sseResponse(source: ExecEventSource, headers: Record<string, string> = {}): Response {
  let stop: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      stop = source.open((event) => {
        if (closed) return;
        controller.enqueue(encoder.encode(sseFrame(event)));
        if (event.kind === "exit") {
          closed = true;
          controller.close();
        }
      });
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
      ...headers,
    },
  });
}
