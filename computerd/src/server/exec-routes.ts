/**
 * The exec routes, for local use and tests (the Durable Object uses the link instead):
 * `POST /exec` (SSE or buffered), `GET /exec`, `GET /exec/:id` (`?follow=1&after=N` re-attaches),
 * `DELETE /exec/:id`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { StoredExec } from "../exec/exec-log-file.ts";
import type { ExecTable } from "../exec/exec-table.ts";
import { Exec } from "../exec/runner.ts";
import { HttpError, readJson, sendJson } from "./http-io.ts";
import { SseStream } from "./sse.ts";

function wantsEvents(req: IncomingMessage): boolean {
  return (req.headers.accept ?? "").includes("text/event-stream");
}

/** The seq to resume after: `?after=N`, else the Last-Event-ID header, else -1 (from the start). */
function afterSeq(req: IncomingMessage, url: URL): number {
  const raw = url.searchParams.get("after") ?? req.headers["last-event-id"];
  if (raw === undefined || raw === null || raw === "") return -1;
  const value = Number(raw);
  if (typeof raw !== "string" || !Number.isInteger(value) || value < -1)
    throw new HttpError("EINVAL", "after must be an integer ≥ -1");
  return value;
}

/** Streams an exec's events after `after` and then its exit, as SSE. */
async function streamEvents(res: ServerResponse, source: Exec | StoredExec, after: number): Promise<void> {
  const sse = new SseStream(res);
  if (source instanceof Exec) {
    const reader = source.log.reader(after, true);
    sse.onClose(() => reader.close());
    for (let event = await reader.next(); event; event = await reader.next()) {
      await sse.send(event.stream, { seq: event.seq, data: event.data }, event.seq);
    }
    reader.close();
    const { result } = source.log;
    if (result) await sse.send("exit", result);
  } else {
    for (const event of source.events) {
      if (event.seq > after) await sse.send(event.stream, { seq: event.seq, data: event.data }, event.seq);
    }
    if (source.result) await sse.send("exit", source.result);
  }
  sse.end();
}

/** `POST /exec` body → an ExecSpec-shaped request (the API's `source` is the wire's `command`). */
function toSpec(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new HttpError("EINVAL", "body must be a JSON object");
  const { source, runtime, ...rest } = body as Record<string, unknown>;
  if (runtime !== undefined && runtime !== "container")
    throw new HttpError("EINVAL", 'computerd runs only the "container" runtime');
  return { ...rest, command: source };
}

/** Handlers of the exec routes over one table. */
export function execRoutes(table: ExecTable) {
  return {
    async start(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const exec = table.start(toSpec(await readJson(req)));
      if (wantsEvents(req)) return streamEvents(res, exec, -1);
      sendJson(res, 200, await exec.done);
    },

    list(_req: IncomingMessage, res: ServerResponse): void {
      sendJson(res, 200, { execs: table.list() });
    },

    async get(req: IncomingMessage, res: ServerResponse, url: URL, id: string): Promise<void> {
      const source = await table.find(id);
      if (!source || (!(source instanceof Exec) && !source.result))
        throw new HttpError("ENOENT", `no exec ${id}`);
      if (url.searchParams.get("follow") === "1") return streamEvents(res, source, afterSeq(req, url));
      sendJson(res, 200, source instanceof Exec ? source.snapshot() : source.result);
    },

    kill(_req: IncomingMessage, res: ServerResponse, _url: URL, id: string): void {
      const exec = table.get(id);
      if (!exec) throw new HttpError("ENOENT", `no exec ${id}`);
      sendJson(res, 200, { id, killed: table.kill(id) });
    },
  };
}
