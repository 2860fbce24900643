/**
 * The exec routes (`/v1/computers/:id/exec...`, docs/API.md), one API for every runtime:
 * start (SSE with `Accept: text/event-stream`, else the buffered result; either way the
 * `X-Exec-Id` header names the exec at once, so a stream can be re-attached), get (or follow as
 * SSE from any seq), list, and kill. A buffered result, and a recent exec's GET, carry the
 * runtime's counters in `X-Exec-Metrics` (RPC round trips of shell/js; the DO's SQL statements
 * and sync round trips of a container exec). A background process (`detach: true`) is answered 202
 * with its running state as soon as it runs. `DELETE` of a finished exec answers 200 with its result
 * unchanged (kill is idempotent); an unknown id is 404.
 */
import type { ExecListener, ExecManager } from "./exec-manager.ts";
import { readExecBody } from "./exec-request.ts";
import type { ExecMetrics } from "./runtime.ts";
import { type ExecEvent, resumeAfter, sseResponse, wantsEventStream } from "./sse.ts";

/** `X-Exec-Metrics` header value: `name=value` pairs, comma-separated (`fsCalls=3, fsOps=12`). */
export function formatMetrics(metrics: ExecMetrics): string {
  return Object.entries(metrics)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");
}

/** POST /exec: starts the exec, then streams it or waits for its result. */
export async function startExec(execs: ExecManager, request: Request): Promise<Response> {
  const body = await readExecBody(request);
  if (body.detach) {
    // A background process: answered once it runs; its output is re-attached with ?follow=1.
    const { id } = await execs.start(body);
    const state = execs.get(id);
    const status = state.status === "running" ? 202 : 200;
    return Response.json(state, { status, headers: { "X-Exec-Id": id } });
  }
  if (!wantsEventStream(request)) {
    const { id, finished } = await execs.start(body);
    const result = await finished;
    const headers: Record<string, string> = { "X-Exec-Id": id };
    const metrics = execs.metrics(id);
    if (metrics !== undefined) headers["X-Exec-Metrics"] = formatMetrics(metrics);
    return Response.json(result, { headers });
  }
  // Attached before the runtime starts: the stream sees all output, even past the journal's cap.
  const queued: ExecEvent[] = [];
  let push: ((event: ExecEvent) => void) | undefined;
  const listener: ExecListener = (event) => (push === undefined ? queued.push(event) : push(event));
  const { id } = await execs.start(body, listener);
  return sseResponse(
    {
      open: (deliver) => {
        for (const event of queued.splice(0)) deliver(event);
        push = deliver;
        return () => execs.detach(id, listener);
      },
    },
    { "X-Exec-Id": id },
  );
}

/** GET /exec/:id: the result or running state; with `?follow=1`, SSE from `?after=` on. */
export function getExec(
  execs: ExecManager,
  request: Request,
  execId: string,
  follow: boolean,
  after: number | undefined,
): Response {
  if (follow) return sseResponse(execs.events(execId, resumeAfter(after, request)));
  const metrics = execs.metrics(execId);
  const headers = metrics === undefined ? undefined : { "X-Exec-Metrics": formatMetrics(metrics) };
  return Response.json(execs.get(execId), { headers });
}

/** GET /exec: the most recent execs, newest first (`?limit=`, default 20), without their output. */
export function listExecs(execs: ExecManager, limit: number): Response {
  return Response.json({ execs: execs.list(limit) });
}

/** DELETE /exec/:id: kills a running exec; answers its result once it has ended. */
export async function killExec(execs: ExecManager, execId: string): Promise<Response> {
  return Response.json(await execs.kill(execId));
}
