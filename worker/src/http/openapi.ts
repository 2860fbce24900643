/**
 * The HTTP contract of docs/API.md as an OpenAPI 3.1 document, served at GET /v1/openapi.json.
 * Its paths come from the contract's route table (@computer/sdk/contract): each route's method,
 * path, summary and access; what is said about each operation is keyed by the route's name, so a
 * route without a description is a compile error and no path is listed twice.
 */
import { ROUTE_NAMES, ROUTES, type RouteName } from "@computer/sdk/contract";
import { FS_OPS } from "../computer/fs-ops.ts";
import { ARTIFACT_OPERATIONS, ARTIFACT_SCHEMAS } from "./openapi-artifacts.ts";
import { LIVE_OPERATIONS, LIVE_SCHEMAS } from "./openapi-live.ts";
import { CORE_OPERATIONS } from "./openapi-operations.ts";
import { PREVIEW_OPERATIONS, PREVIEW_SCHEMAS } from "./openapi-previews.ts";
import { bool, idParam, int, type Json, object, ref, type Schema, str } from "./openapi-schema.ts";

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
  ...PREVIEW_SCHEMAS,
  FsOp: {
    type: "object",
    required: ["op"],
    description:
      "mkdir {path, recursive?, mode?} | rename {from, to, exchange?} | symlink {target, path} | link {existing, path} | " +
      "chmod {path, mode} | chown {path, uid, gid} | utimes {path, atime?, mtime?} | truncate {path, length} | " +
      "rm {path, recursive?, force?} | stat {path, follow?} | readdir {path, after?, limit?} | readlink {path} | " +
      "realpath {path} | du {path} | find {path, glob, limit?} | grep {path, pattern, regex?, ignoreCase?, context?, limit?, glob?} | " +
      "listxattr {path, follow?} | getxattr {path, name, follow?} | setxattr {path, name, value (base64), flag?, follow?} | " +
      'removexattr {path, name, follow?}. utimes times: milliseconds, ISO-8601, {sec, nsec}, "now" or "omit".',
    properties: {
      op: {
        enum: Object.keys(FS_OPS),
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

/** Every route's operation, by name. */
const OPERATIONS: Record<RouteName, Schema> = {
  ...CORE_OPERATIONS,
  ...ARTIFACT_OPERATIONS,
  ...LIVE_OPERATIONS,
  ...PREVIEW_OPERATIONS,
};

const pathParam: Schema = {
  name: "path",
  in: "path",
  required: true,
  description:
    "Workspace path, may contain '/'; each segment percent-encoded; no '.', '..' or empty segments.",
  schema: { type: "string" },
};

/** The path parameters of `template` the operation does not declare itself. */
function pathParameters(template: string, declared: Json[]): Schema[] {
  const own = new Set(declared.map((p) => (p as { name?: string }).name));
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
  return names
    .filter((name) => !own.has(name))
    .map((name) => {
      if (name === "id") return idParam;
      if (name === "path") return pathParam;
      return { name, in: "path", required: true, schema: str };
    });
}

function paths(): Schema {
  const out: Record<string, Schema> = {};
  for (const name of ROUTE_NAMES) {
    const route = ROUTES[name];
    const operation = OPERATIONS[name];
    const declared = (operation.parameters ?? []) as Json[];
    const parameters = [...pathParameters(route.path, declared), ...declared];
    out[route.path] ??= {};
    (out[route.path] as Schema)[route.method.toLowerCase()] = {
      operationId: name,
      summary: route.summary,
      "x-access": route.access,
      ...(route.access === "public" ? { security: [] } : {}),
      ...operation,
      ...(parameters.length === 0 ? {} : { parameters }),
    };
  }
  return out;
}

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
  paths: paths(),
};
