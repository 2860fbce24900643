/**
 * The live part of the OpenAPI document (openapi.ts merges it): the change feed (JSON pages
 * or Server-Sent Events) and terminals (their WebSocket protocol is described in docs/API.md).
 */

import type { RouteName } from "@computer/sdk/contract";
import { error, int, json, object, ref, type Schema, str } from "./openapi-schema.ts";

const query = (name: string, schema: Schema, description: string): Schema => ({
  name,
  in: "query",
  schema,
  description,
});
const std = {
  "400": error("Invalid cursor, path or limit (EINVAL)"),
  "401": error("Missing, invalid, expired or revoked token (EUNAUTHORIZED)"),
  "403": error("Token for another computer (EFORBIDDEN)"),
  "404": error("No such computer (ENOENT)"),
};

/** Schemas of the live routes. */
export const LIVE_SCHEMAS: Schema = {
  Change: object(
    {
      rev: int,
      cursor: { type: "string", description: "Resumes the feed right after this change." },
      path: str,
      event: { enum: ["changed", "deleted"] },
      type: { enum: ["file", "dir", "symlink", "fifo", "socket", "char", "block"] },
      size: int,
      mode: str,
      mtime: str,
      target: str,
    },
    ["rev", "cursor", "path", "event"],
  ),
  TerminalRequest: object(
    {
      runtime: { enum: ["container", "shell"] },
      cols: { type: "integer", minimum: 1, maximum: 1000 },
      rows: { type: "integer", minimum: 1, maximum: 1000 },
      cwd: str,
      env: { type: "object", additionalProperties: str },
      idleTimeoutSeconds: { type: "integer", minimum: 1, maximum: 86400 },
    },
    ["cols", "rows"],
  ),
  Terminal: object(
    {
      id: str,
      runtime: { enum: ["container", "shell"] },
      cols: int,
      rows: int,
      createdAt: str,
      status: { enum: ["running", "exited"] },
      exitCode: { type: ["integer", "null"] },
      signal: str,
      attached: int,
    },
    ["id", "runtime", "cols", "rows", "createdAt", "status", "exitCode", "attached"],
  ),
  ChangesPage: object(
    { changes: { type: "array", items: ref("Change") }, cursor: str, more: { type: "boolean" } },
    ["changes", "cursor", "more"],
  ),
};

const terminalId = { name: "tid", in: "path", required: true, schema: str };

/** Operations of the live routes, by route name. */
export const LIVE_OPERATIONS = {
  "terminals.create": {
    requestBody: { required: true, content: { "application/json": { schema: ref("TerminalRequest") } } },
    responses: {
      "201": json(ref("Terminal"), "Opened"),
      ...std,
      "409": error("Too many terminals (EBUSY)"),
      "503": error("The container is not available (EUNAVAILABLE)"),
    },
  },
  "terminals.list": {
    responses: {
      "200": json(object({ terminals: { type: "array", items: ref("Terminal") } }), "Terminals"),
      ...std,
    },
  },
  "terminals.get": {
    description:
      "The terminal's state; with a WebSocket upgrade, attach (binary frames: bytes both ways; text: JSON " +
      "resize/input/exit/error). Token also accepted as subprotocol `bearer.<token>`.",
    parameters: [terminalId],
    responses: { "200": json(ref("Terminal"), "State"), "101": { description: "Attached" }, ...std },
  },
  "terminals.kill": {
    parameters: [terminalId],
    responses: { "200": json(ref("Terminal"), "Ended"), ...std },
  },
  changes: {
    description:
      "The change feed: a JSON page, or with Accept: text/event-stream a stream of `change` events " +
      "(id = cursor), `synced` events and keep-alives. Cursors stay valid for at least one hour.",
    parameters: [
      query("after", str, "A cursor, '0' (default: the whole tree first) or 'now'"),
      query("path", str, "Only changes at or under this path"),
      query("limit", int, "1..1000 per page, default 500"),
    ],
    responses: {
      "200": json(ref("ChangesPage"), "A page (or text/event-stream)"),
      ...std,
      "410": error("Cursor older than the retention (ESTALE); error.cursor is the current cursor"),
    },
  },
} satisfies Partial<Record<RouteName, Schema>>;
