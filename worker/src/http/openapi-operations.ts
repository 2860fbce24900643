/**
 * What the OpenAPI document says about each core route, keyed by the route's name in the
 * contract's table (@computer/sdk/contract): bodies, parameters and answers. openapi.ts places
 * each under the method and path the table gives, so no path is written here.
 */
import type { RouteName } from "@computer/sdk/contract";
import { error, int, json, object, ref, type Schema, str } from "./openapi-schema.ts";

const body = (schema: Schema): Schema => ({ required: true, content: { "application/json": { schema } } });
const std = {
  "400": error("Invalid input (EINVAL, ENAMETOOLONG, malformed JSON)"),
  "401": error("Missing, invalid, expired or revoked token (EUNAUTHORIZED)"),
  "403": error("Token for another computer, read-only token on a write, or admin-only route (EFORBIDDEN)"),
  "404": error("No such computer, file or route (ENOENT)"),
};
const noContent = { description: "Done" };
const query = (name: string, schema: Schema, description?: string): Schema => ({
  name,
  in: "query",
  schema,
  ...(description === undefined ? {} : { description }),
});

/** The core routes' operations (artifacts and live routes have their own files). */
export const CORE_OPERATIONS = {
  health: { responses: { "200": { description: "ok", content: { "text/plain": { schema: str } } } } },
  "health.head": { responses: { "200": { description: "ok" } } },
  openapi: { responses: { "200": json({ type: "object" }, "This document") } },
  "computers.list": {
    description: "Admin only. Paged by id with ?after=&limit= (1..100, default 50).",
    parameters: [query("after", str), query("limit", int)],
    responses: {
      "200": json(object({ computers: { type: "array", items: ref("Computer") }, next: str }), "Computers"),
      ...std,
    },
  },
  "computer.put": {
    description: "Admin only. Creates (201) or updates quota/egress (200).",
    requestBody: {
      content: { "application/json": { schema: object({ quotaBytes: int, egress: ref("Egress") }) } },
    },
    responses: { "200": json(ref("Computer"), "Updated"), "201": json(ref("Computer"), "Created"), ...std },
  },
  "computer.get": { responses: { "200": json(ref("Computer"), "The computer"), ...std } },
  "computer.delete": { description: "Admin only. Drops all data.", responses: { "204": noContent, ...std } },
  "tokens.create": {
    description: "Admin only. Issues a token for this computer.",
    requestBody: body(object({ ttlSeconds: int, scope: { enum: ["ro", "rw"] } }, ["scope"])),
    responses: { "201": json(object({ token: str, expiresAt: str }), "Token"), ...std },
  },
  "tokens.revoke": {
    description: "Admin only. Revokes every token of this computer.",
    responses: { "204": noContent, ...std },
  },
  "files.put": {
    parameters: [query("mode", { type: "string", pattern: "^0?[0-7]{1,4}$" })],
    requestBody: {
      content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
    },
    responses: {
      "201": json(object({ path: str, size: int, mtime: str, mode: str }), "Written"),
      ...std,
      "507": error("Quota exceeded (ENOSPC)"),
    },
  },
  "files.get": {
    parameters: [{ name: "Range", in: "header", schema: str }, query("after", str), query("limit", int)],
    responses: {
      "200": {
        description: "File bytes, or a directory listing",
        content: {
          "application/octet-stream": { schema: { type: "string", format: "binary" } },
          "application/json": {
            schema: object({ entries: { type: "array", items: ref("Entry") }, next: str }),
          },
        },
      },
      "206": { description: "Partial content" },
      "304": { description: "Not modified (If-None-Match)" },
      "416": error("Range not satisfiable (ERANGE)"),
      ...std,
    },
  },
  "files.head": {
    responses: {
      "200": { description: "X-File-Type, Content-Length, X-File-Mode, Last-Modified" },
      "404": { description: "Not found" },
    },
  },
  "files.delete": {
    parameters: [query("recursive", { enum: ["0", "1"] })],
    responses: { "204": noContent, ...std, "409": error("ENOTEMPTY / EISDIR") },
  },
  fs: {
    requestBody: body(ref("FsOp")),
    responses: {
      "200": json(
        { oneOf: [ref("Stat"), { type: "object" }] },
        "The op's result: a Stat for stat, mkdir, chmod, chown, utimes, truncate, link, symlink, rename",
      ),
      "409": error("EEXIST, ENOTEMPTY, ENOTDIR, EISDIR, EBUSY, EMLINK"),
      ...std,
    },
  },
  "exec.start": {
    requestBody: body(ref("ExecRequest")),
    responses: {
      "200": json(ref("ExecResult"), "Result (or text/event-stream with Accept: text/event-stream)"),
      "202": json(ref("ExecResult"), "A background process (detach: true), running"),
      "409": error("Too many background processes (EBUSY)"),
      "503": error("Runtime not available (EUNAVAILABLE)"),
      ...std,
    },
  },
  "exec.list": {
    parameters: [query("limit", int, "1..100, default 20")],
    responses: {
      "200": json(
        object({ execs: { type: "array", items: ref("ExecResult") } }),
        "Recent execs, newest first, without stdout/stderr/value",
      ),
      ...std,
    },
  },
  "exec.get": {
    parameters: [
      query("follow", { enum: ["1", "0"] }, "SSE re-attach"),
      query("after", int, "Resume after this seq (or Last-Event-ID)"),
    ],
    responses: { "200": json(ref("ExecResult"), "The exec (text/event-stream with follow=1)"), ...std },
  },
  "exec.kill": {
    responses: {
      "200": json(ref("ExecResult"), "Killed, or the unchanged result of a finished exec"),
      ...std,
    },
  },
  "checkpoints.create": {
    requestBody: body(object({ name: str }, ["name"])),
    responses: { "201": json(ref("Checkpoint"), "Created"), ...std, "409": error("EEXIST") },
  },
  "checkpoints.list": {
    responses: {
      "200": json(object({ checkpoints: { type: "array", items: ref("Checkpoint") } }), "Checkpoints"),
      ...std,
    },
  },
  "checkpoints.restore": { responses: { "200": json(object({ name: str, rev: int }), "Restored"), ...std } },
  mcp: {
    description:
      "A JSON-RPC message of the Model Context Protocol (Streamable HTTP, stateless; JSON answers). Tools: " +
      "read, write, edit, ls, find, grep, exec, publish, checkpoint, restore (an ro token: the read-only ones); " +
      "resources computer://<id>/<path>. docs/MCP.md.",
    requestBody: body({ type: "object" }),
    responses: {
      "200": json({ type: "object" }, "The JSON-RPC answer"),
      "202": { description: "Accepted (a notification)" },
      ...std,
    },
  },
  "mcp.get": {
    responses: { "405": { description: "No server-to-client stream: the server is stateless" }, ...std },
  },
  "mcp.delete": {
    responses: { "405": { description: "No session to end: the server is stateless" }, ...std },
  },
  fork: {
    description: "Admin only.",
    requestBody: body(object({ to: str, checkpoint: str }, ["to"])),
    responses: {
      "201": json(ref("Computer"), "The new computer"),
      ...std,
      "409": error("Target exists (EEXIST)"),
    },
  },
} satisfies Partial<Record<RouteName, Schema>>;
