/**
 * `GET /v1/computers/:id/changes` (docs/API.md): the vfs's own change feed as a JSON page or
 * as Server-Sent Events that stay open and push each new change. Every change carries the
 * cursor that resumes right after it; a cursor older than the retention is 410 ESTALE with the
 * current cursor, never a silent gap.
 */
import type { ChangeJson, ChangesPage } from "@computer/sdk/contract";
import type { Change, Vfs } from "@computer/vfs";
import { ApiError } from "../http/errors.ts";
import { formatMode } from "../http/mode.ts";
import type { ComputerContext } from "./context.ts";
import { isoOf } from "./stat-json.ts";

/** Changes read from the vfs per page (JSON default, and each step of a stream). */
export const CHANGES_PAGE = 500;
/** A stream with nothing to say sends an SSE comment this often, so proxies keep it open. */
const KEEPALIVE_MS = 25_000;

/** One change as the API shows it: the contract's type. */
export type { ChangeJson };

/** What a changes request asks for (route.ts parses it). */
export interface ChangesQuery {
  /** A cursor, "0" for the whole current tree, or "now" for only what changes from here on. */
  after: string;
  limit: number | undefined;
  /** Only changes at or under this vfs path ("/" for all). */
  path: string;
}

function changeJson(change: Change, cursor: string): ChangeJson {
  const { stat } = change;
  if (stat === undefined) return { rev: change.rev, cursor, path: change.path, event: "deleted" };
  const json: ChangeJson = {
    rev: change.rev,
    cursor,
    path: change.path,
    event: "changed",
    type: stat.type,
    size: stat.size,
    mode: formatMode(stat.mode),
    mtime: isoOf(stat.mtime),
  };
  if (change.target !== undefined) json.target = change.target;
  return json;
}

function under(prefix: string): (path: string) => boolean {
  if (prefix === "/") return () => true;
  return (path) => path === prefix || path.startsWith(`${prefix}/`);
}

function stale(vfs: Vfs): ApiError {
  return new ApiError("ESTALE", "cursor older than the change feed's retention: start again from after=0", {
    details: { cursor: String(vfs.rev()) },
  });
}

/** One page of matching changes after `after`; throws 410 ESTALE for a too-old cursor. */
function readPage(vfs: Vfs, after: string, limit: number, matches: (path: string) => boolean): ChangesPage {
  const page = vfs.changes(after, { limit });
  if (page.reset) throw stale(vfs);
  const changes: ChangeJson[] = [];
  page.changes.forEach((change, i) => {
    if (matches(change.path)) changes.push(changeJson(change, page.cursors[i] ?? page.cursor));
  });
  return { changes, cursor: page.cursor, more: page.more };
}

function startCursor(vfs: Vfs, after: string): string {
  return after === "now" ? String(vfs.rev()) : after;
}

/** The JSON page: `{ changes, cursor, more }` (a filtered page may be empty while `more` is true). */
export function changesPage(host: ComputerContext, query: ChangesQuery): Response {
  host.requireComputer();
  const vfs = host.vfs();
  const page = readPage(vfs, startCursor(vfs, query.after), query.limit ?? CHANGES_PAGE, under(query.path));
  return Response.json(page, { headers: { "Cache-Control": "no-store" } });
}

const encoder = new TextEncoder();

function frame(event: string, id: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The live stream: `change` events (id = the change's cursor, so an EventSource resumes with
 * Last-Event-ID), a `synced` event `{ cursor }` each time it has caught up with the present,
 * and an `error` event (then the end) if its position is pruned away. It reads one page per
 * pull, so a slow reader holds back the feed instead of filling memory.
 */
export function changesStream(
  host: ComputerContext,
  query: ChangesQuery,
  lastEventId: string | null,
): Response {
  host.requireComputer();
  const vfs = host.vfs();
  let cursor = startCursor(vfs, lastEventId ?? query.after);
  const matches = under(query.path);
  const limit = query.limit ?? CHANGES_PAGE;
  // Fail before the stream starts, with a status, when the cursor is already too old or malformed.
  readPage(vfs, cursor, 1, matches);
  let dirty = true;
  let wake: (() => void) | undefined;
  let keepalive: ReturnType<typeof setTimeout> | undefined;
  const stopListening = vfs.onRevision(() => {
    dirty = true;
    // The revision's transaction is still open; the woken pull runs in a later microtask.
    wake?.();
  });
  const stop = () => {
    stopListening();
    clearTimeout(keepalive);
    wake?.();
  };
  let stopped = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!dirty) {
        const idle = await new Promise<boolean>((resolve) => {
          wake = () => resolve(false);
          keepalive = setTimeout(() => resolve(true), KEEPALIVE_MS);
        });
        wake = undefined;
        clearTimeout(keepalive);
        if (stopped) return;
        if (idle && !dirty) {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
          return;
        }
      }
      let text = "";
      try {
        // Pages whose changes the path filter drops entirely are skipped within this pull.
        for (;;) {
          dirty = false;
          const page = readPage(vfs, cursor, limit, matches);
          for (const change of page.changes) text += frame("change", change.cursor, change);
          cursor = page.cursor;
          if (!page.more) {
            text += frame("synced", cursor, { cursor });
            break;
          }
          // More pages: the next pull reads on at once.
          dirty = true;
          if (text !== "") break;
        }
      } catch (err) {
        const error =
          err instanceof ApiError ? { code: err.code, message: err.message, ...err.details } : err;
        text += `event: error\ndata: ${JSON.stringify({ error })}\n\n`;
        controller.enqueue(encoder.encode(text));
        stopped = true;
        stop();
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(text));
    },
    cancel() {
      stopped = true;
      stop();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
    },
  });
}
