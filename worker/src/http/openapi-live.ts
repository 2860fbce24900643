/**
 * The live part of the OpenAPI document (openapi.ts merges it): the change feed (JSON pages
 * or Server-Sent Events).
 */

import { error, idParam, int, json, object, ref, type Schema, str } from "./openapi-schema.ts";

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
  ChangesPage: object(
    { changes: { type: "array", items: ref("Change") }, cursor: str, more: { type: "boolean" } },
    ["changes", "cursor", "more"],
  ),
};

/** Paths of the live routes. */
export const LIVE_PATHS: Schema = {
  "/v1/computers/{id}/changes": {
    parameters: [idParam],
    get: {
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
  },
};
