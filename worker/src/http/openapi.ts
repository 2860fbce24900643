/**
 * The HTTP contract of docs/API.md as an OpenAPI 3.1 document, served at GET /v1/openapi.json.
 * Hand-written: keep it in step with route.ts (a test checks that every route is described).
 */

import { ARTIFACT_PATHS, ARTIFACT_SCHEMAS } from "./openapi-artifacts.ts";
import { LIVE_PATHS, LIVE_SCHEMAS } from "./openapi-live.ts";
import { bool, error, idParam, int, json, object, ref, type Schema, str } from "./openapi-schema.ts";

const body = (schema: Schema): Schema => ({ required: true, content: { "application/json": { schema } } });
const pathParam: Schema = {
  name: "path",
  in: "path",
  required: true,
  description:
    "Workspace path, may contain '/'; each segment percent-encoded; no '.', '..' or empty segments.",
  schema: { type: "string" },
};
const std = {
  "400": error("Invalid input (EINVAL, ENAMETOOLONG, malformed JSON)"),
  "401": error("Missing, invalid, expired or revoked token (EUNAUTHORIZED)"),
  "403": error("Token for another computer, read-only token on a write, or admin-only route (EFORBIDDEN)"),
  "404": error("No such computer, file or route (ENOENT)"),
};
const noContent = { description: "Done" };
const computerId = (extra: Schema = {}): Schema => ({ parameters: [idParam], ...extra });

const schemas: Schema = {
  Error: object({ error: object({ code: str, message: str, path: str }, ["code", "message"]) }, ["error"]),
  Egress: {
    oneOf: [{ enum: ["none", "all"] }, object({ allow: { type: "array", items: str } }, ["allow"])],
  },
  Computer: object(
    {
      id: str,
      createdAt: str,
      quotaBytes: { type: ["integer", "null"] },
      usedBytes: int,
      egress: ref("Egress"),
    },
    ["id", "createdAt", "quotaBytes", "usedBytes", "egress"],
  ),
  Entry: object({
    name: str,
    type: str,
    size: int,
    mode: { type: "string", examples: ["0644"] },
    mtime: str,
  }),
  Timespec: {
    ...object({ sec: int, nsec: { type: "integer", minimum: 0, maximum: 999_999_999 } }, ["sec", "nsec"]),
    description: "Seconds since the epoch (negative before 1970) and nanoseconds.",
  },
  Stat: object(
    {
      path: str,
      type: { enum: ["file", "dir", "symlink", "fifo", "socket", "char", "block"] },
      size: int,
      allocated: { type: "integer", description: "Stored bytes; holes of sparse files do not count." },
      mode: {
        type: "string",
        description: "Permission bits incl. setuid/setgid/sticky, octal.",
        examples: ["4755"],
      },
      uid: int,
      gid: int,
      nlink: int,
      ino: int,
      rdev: { type: "integer", description: "Linux dev_t of a char/block device; 0 otherwise." },
      rdevMajor: int,
      rdevMinor: int,
      mtime: { type: "string", description: "ISO-8601, millisecond precision (exact: timespec.mtime)." },
      atime: str,
      ctime: str,
      timespec: object({ atime: ref("Timespec"), mtime: ref("Timespec"), ctime: ref("Timespec") }, [
        "atime",
        "mtime",
        "ctime",
      ]),
      target: { type: "string", description: "A symlink's target (stat with follow: false)." },
    },
    [
      "path",
      "type",
      "size",
      "mode",
      "uid",
      "gid",
      "nlink",
      "ino",
      "rdev",
      "mtime",
      "atime",
      "ctime",
      "timespec",
    ],
  ),
  Checkpoint: object({ name: str, rev: int, createdAt: str }, ["name", "rev", "createdAt"]),
  ...ARTIFACT_SCHEMAS,
  ...LIVE_SCHEMAS,
  FsOp: {
    type: "object",
    required: ["op"],
    description:
      "mkdir {path, recursive?, mode?} | rename {from, to, exchange?} | symlink {target, path} | link {existing, path} | " +
      "chmod {path, mode} | chown {path, uid, gid} | utimes {path, atime?, mtime?} | truncate {path, length} | " +
      "rm {path, recursive?, force?} | stat {path, follow?} | readdir {path, after?, limit?} | readlink {path} | " +
      "realpath {path} | du {path} | find {path, glob, limit?} | grep {path, pattern, regex?, ignoreCase?, context?, limit?} | " +
      "listxattr {path, follow?} | getxattr {path, name, follow?} | setxattr {path, name, value (base64), flag?, follow?} | " +
      'removexattr {path, name, follow?}. utimes times: milliseconds, ISO-8601, {sec, nsec}, "now" or "omit".',
    properties: {
      op: {
        enum: [
          "mkdir",
          "rename",
          "symlink",
          "link",
          "chmod",
          "chown",
          "utimes",
          "truncate",
          "rm",
          "stat",
          "readdir",
          "readlink",
          "realpath",
          "du",
          "find",
          "grep",
          "listxattr",
          "getxattr",
          "setxattr",
          "removexattr",
        ],
      },
      path: str,
      from: str,
      to: str,
      target: str,
      existing: str,
      mode: { type: ["string", "integer"] },
      recursive: bool,
      exchange: {
        type: "boolean",
        description: "rename: swap `from` and `to` atomically (renameat2 RENAME_EXCHANGE); both must exist.",
      },
      glob: str,
      pattern: str,
      regex: bool,
      ignoreCase: bool,
      follow: bool,
      name: { type: "string", description: "Extended attribute name, e.g. user.mime (xattr ops)." },
      value: {
        type: "string",
        contentEncoding: "base64",
        description: "Extended attribute value (setxattr).",
      },
      flag: { enum: ["create", "replace"] },
      atime: { oneOf: [int, str, ref("Timespec")] },
      mtime: { oneOf: [int, str, ref("Timespec")] },
    },
  },
  ExecRequest: object(
    {
      runtime: { enum: ["container", "shell", "js"] },
      source: str,
      cwd: str,
      env: { type: "object", additionalProperties: str },
      stdin: str,
      input: {},
      timeoutMs: int,
      detach: bool,
    },
    ["runtime", "source"],
  ),
  ExecResult: object({
    id: str,
    runtime: str,
    status: { enum: ["running", "completed", "failed", "timeout", "killed"] },
    exitCode: int,
    stdout: str,
    stderr: str,
    truncated: bool,
    value: {},
    durationMs: int,
    createdAt: str,
    lastSeq: int,
    detached: bool,
    error: object({ code: str, message: str }),
    sync: object({
      status: { enum: ["complete", "pending", "none"] },
      rev: int,
      conflicts: { type: "array" },
    }),
  }),
};

/** The OpenAPI 3.1 document of the v1 API. */
export const OPENAPI: Schema = {
  openapi: "3.1.0",
  info: {
    title: "Computer API",
    version: "1.0.0",
    description: "Virtual computers for AI agents (docs/API.md).",
  },
  components: { schemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/healthz": {
      get: {
        security: [],
        responses: { "200": { description: "ok", content: { "text/plain": { schema: str } } } },
      },
    },
    "/v1/openapi.json": { get: { responses: { "200": json({ type: "object" }, "This document") } } },
    "/v1/computers": {
      get: {
        description: "Admin only. Paged by id with ?after=&limit= (1..100, default 50).",
        responses: {
          "200": json(
            object({ computers: { type: "array", items: ref("Computer") }, next: str }),
            "Computers",
          ),
          ...std,
        },
      },
    },
    "/v1/computers/{id}": computerId({
      put: {
        description: "Admin only. Creates (201) or updates quota/egress (200).",
        requestBody: {
          content: { "application/json": { schema: object({ quotaBytes: int, egress: ref("Egress") }) } },
        },
        responses: {
          "200": json(ref("Computer"), "Updated"),
          "201": json(ref("Computer"), "Created"),
          ...std,
        },
      },
      get: { responses: { "200": json(ref("Computer"), "The computer"), ...std } },
      delete: { description: "Admin only. Drops all data.", responses: { "204": noContent, ...std } },
    }),
    "/v1/computers/{id}/tokens": computerId({
      post: {
        description: "Admin only. Issues a token for this computer.",
        requestBody: body(object({ ttlSeconds: int, scope: { enum: ["ro", "rw"] } }, ["scope"])),
        responses: { "201": json(object({ token: str, expiresAt: str }), "Token"), ...std },
      },
      delete: {
        description: "Admin only. Revokes every token of this computer.",
        responses: { "204": noContent, ...std },
      },
    }),
    "/v1/computers/{id}/files/{path}": {
      parameters: [idParam, pathParam],
      put: {
        parameters: [{ name: "mode", in: "query", schema: { type: "string", pattern: "^0?[0-7]{1,4}$" } }],
        requestBody: {
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        },
        responses: {
          "201": json(object({ path: str, size: int, mtime: str, mode: str }), "Written"),
          ...std,
          "507": error("Quota exceeded (ENOSPC)"),
        },
      },
      get: {
        parameters: [
          { name: "Range", in: "header", schema: str },
          { name: "after", in: "query", schema: str },
          { name: "limit", in: "query", schema: int },
        ],
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
      head: {
        responses: {
          "200": { description: "X-File-Type, Content-Length, X-File-Mode, Last-Modified" },
          "404": { description: "Not found" },
        },
      },
      delete: {
        parameters: [{ name: "recursive", in: "query", schema: { enum: ["0", "1"] } }],
        responses: { "204": noContent, ...std, "409": error("ENOTEMPTY / EISDIR") },
      },
    },
    "/v1/computers/{id}/fs": computerId({
      post: {
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
    }),
    "/v1/computers/{id}/exec": computerId({
      post: {
        requestBody: body(ref("ExecRequest")),
        responses: {
          "200": json(ref("ExecResult"), "Result (or text/event-stream with Accept: text/event-stream)"),
          "202": json(ref("ExecResult"), "A background process (detach: true), running"),
          "409": error("Too many background processes (EBUSY)"),
          "503": error("Runtime not available (EUNAVAILABLE)"),
          ...std,
        },
      },
      get: {
        parameters: [{ name: "limit", in: "query", schema: int, description: "1..100, default 20" }],
        responses: {
          "200": json(
            object({ execs: { type: "array", items: ref("ExecResult") } }),
            "Recent execs, newest first, without stdout/stderr/value",
          ),
          ...std,
        },
      },
    }),
    "/v1/computers/{id}/exec/{execId}": {
      parameters: [idParam, { name: "execId", in: "path", required: true, schema: str }],
      get: {
        parameters: [
          { name: "follow", in: "query", schema: { enum: ["1", "0"] }, description: "SSE re-attach" },
          {
            name: "after",
            in: "query",
            schema: int,
            description: "Resume after this seq (or Last-Event-ID)",
          },
        ],
        responses: { "200": json(ref("ExecResult"), "The exec (text/event-stream with follow=1)"), ...std },
      },
      delete: {
        responses: {
          "200": json(ref("ExecResult"), "Killed, or the unchanged result of a finished exec"),
          ...std,
        },
      },
    },
    "/v1/computers/{id}/checkpoints": computerId({
      post: {
        requestBody: body(object({ name: str }, ["name"])),
        responses: { "201": json(ref("Checkpoint"), "Created"), ...std, "409": error("EEXIST") },
      },
      get: {
        responses: {
          "200": json(object({ checkpoints: { type: "array", items: ref("Checkpoint") } }), "Checkpoints"),
          ...std,
        },
      },
    }),
    "/v1/computers/{id}/checkpoints/{name}/restore": {
      parameters: [idParam, { name: "name", in: "path", required: true, schema: str }],
      post: { responses: { "200": json(object({ name: str, rev: int }), "Restored"), ...std } },
    },
    "/v1/computers/{id}/fork": computerId({
      post: {
        description: "Admin only.",
        requestBody: body(object({ to: str, checkpoint: str }, ["to"])),
        responses: {
          "201": json(ref("Computer"), "The new computer"),
          ...std,
          "409": error("Target exists (EEXIST)"),
        },
      },
    }),
    ...ARTIFACT_PATHS,
    ...LIVE_PATHS,
  },
};
