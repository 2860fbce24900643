/**
 * `POST /v1/computers/:id/fs`: one JSON filesystem op per request. Each op declares whether
 * it writes (a read-only token may run only the others) and maps its fields onto one vfs call.
 */
import type { TimeArg, Vfs } from "@computer/vfs";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../http/errors.ts";
import {
  type JsonObject,
  optionalBoolean,
  optionalInteger,
  optionalString,
  readJsonObject,
  requireInteger,
  requireString,
} from "../http/json-body.ts";
import { parseMode } from "../http/mode.ts";
import { parseBodyPath, parseSymlinkTarget } from "../http/paths.ts";
import { requireWrite } from "./authorize.ts";
import type { ComputerContext } from "./context.ts";
import { entryJson, statJson } from "./stat-json.ts";
import { XATTR_OPS } from "./xattr-ops.ts";

/** One op of POST /fs. */
export interface OpSpec {
  /** True if the op mutates the filesystem (needs a rw token). */
  writes: boolean;
  run(vfs: Vfs, body: JsonObject): object;
}

const MAX_ID = 2 ** 32 - 1;

function path(body: JsonObject, key = "path"): string {
  return parseBodyPath(requireString(body, key));
}

function lstatOf(vfs: Vfs, p: string): object {
  return statJson(p, vfs.lstat(p));
}

/** `{ sec, nsec }` as the stat op answers it: whole seconds (negative before 1970), nsec 0–999999999. */
function isTimespec(value: unknown): value is { sec: number; nsec: number } {
  if (typeof value !== "object" || value === null) return false;
  const { sec, nsec } = value as { sec?: unknown; nsec?: unknown };
  return (
    Number.isSafeInteger(sec) && Number.isInteger(nsec) && Number(nsec) >= 0 && Number(nsec) <= 999_999_999
  );
}

function timeArg(body: JsonObject, key: string): TimeArg {
  const value = body[key];
  if (value === undefined || value === "omit") return "omit";
  if (value === "now") return "now";
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (isTimespec(value)) return { sec: value.sec, nsec: value.nsec };
  if (typeof value === "string") {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new ApiError(
    "EINVAL",
    `'${key}' must be milliseconds, an ISO-8601 time, { sec, nsec }, "now" or "omit"`,
  );
}

function checkRegex(pattern: string, ignoreCase: boolean): void {
  try {
    new RegExp(pattern, ignoreCase ? "i" : "");
  } catch {
    throw new ApiError("EINVAL", "invalid regular expression");
  }
}

/** Every op of POST /fs. */
export const FS_OPS = {
  mkdir: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      const mode = body.mode === undefined ? undefined : parseMode(body.mode);
      vfs.mkdir(p, { recursive: optionalBoolean(body, "recursive") ?? false, mode });
      return lstatOf(vfs, p);
    },
  },
  rename: {
    writes: true,
    run(vfs, body) {
      const from = path(body, "from");
      const to = path(body, "to");
      // exchange: renameat2(RENAME_EXCHANGE), both names stay and trade what they name.
      vfs.rename(from, to, { exchange: optionalBoolean(body, "exchange") ?? false });
      return { from, ...lstatOf(vfs, to) };
    },
  },
  symlink: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      vfs.symlink(parseSymlinkTarget(requireString(body, "target")), p);
      return { ...lstatOf(vfs, p), target: vfs.readlink(p) };
    },
  },
  link: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      vfs.link(path(body, "existing"), p);
      return lstatOf(vfs, p);
    },
  },
  chmod: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      vfs.chmod(p, parseMode(body.mode));
      return statJson(p, vfs.stat(p));
    },
  },
  chown: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      vfs.chown(p, requireInteger(body, "uid", 0, MAX_ID), requireInteger(body, "gid", 0, MAX_ID));
      return statJson(p, vfs.stat(p));
    },
  },
  utimes: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      vfs.utimes(p, timeArg(body, "atime"), timeArg(body, "mtime"));
      return statJson(p, vfs.stat(p));
    },
  },
  truncate: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      return statJson(p, vfs.truncate(p, requireInteger(body, "length", 0, Number.MAX_SAFE_INTEGER)));
    },
  },
  rm: {
    writes: true,
    run(vfs, body) {
      const p = path(body);
      if (p === "/") throw new ApiError("EINVAL", "the workspace root cannot be removed", { path: p });
      vfs.rm(p, {
        recursive: optionalBoolean(body, "recursive") ?? false,
        force: optionalBoolean(body, "force") ?? false,
      });
      return { path: p };
    },
  },
  stat: {
    writes: false,
    run(vfs, body) {
      const p = path(body);
      if (optionalBoolean(body, "follow") === false) {
        const stat = vfs.lstat(p);
        return stat.type === "symlink"
          ? { ...statJson(p, stat), target: vfs.readlink(p) }
          : statJson(p, stat);
      }
      return statJson(p, vfs.stat(p));
    },
  },
  readdir: {
    writes: false,
    run(vfs, body) {
      const page = vfs.readdir(path(body), {
        after: optionalString(body, "after"),
        limit: optionalInteger(body, "limit", 1, 10000),
      });
      const entries = page.entries.map(entryJson);
      return page.next === undefined ? { entries } : { entries, next: page.next };
    },
  },
  readlink: {
    writes: false,
    run(vfs, body) {
      const p = path(body);
      return { path: p, target: vfs.readlink(p) };
    },
  },
  realpath: {
    writes: false,
    run(vfs, body) {
      return { path: vfs.realpath(path(body)) };
    },
  },
  du: {
    writes: false,
    run(vfs, body) {
      const p = path(body);
      return { path: p, ...vfs.du(p) };
    },
  },
  find: {
    writes: false,
    run(vfs, body) {
      const glob = requireString(body, "glob");
      if (glob === "" || glob.includes("\0"))
        throw new ApiError("EINVAL", "'glob' must be a non-empty pattern");
      return { paths: vfs.find(path(body), glob, optionalInteger(body, "limit", 1, 100000)) };
    },
  },
  grep: {
    writes: false,
    run(vfs, body) {
      const pattern = requireString(body, "pattern");
      if (pattern === "") throw new ApiError("EINVAL", "'pattern' must not be empty");
      const regex = optionalBoolean(body, "regex") ?? false;
      const ignoreCase = optionalBoolean(body, "ignoreCase") ?? false;
      if (regex) checkRegex(pattern, ignoreCase);
      const matches = vfs.grep(path(body), pattern, {
        regex,
        ignoreCase,
        context: optionalInteger(body, "context", 0, 100),
        limit: optionalInteger(body, "limit", 1, 100000),
        glob: optionalString(body, "glob"),
      });
      return { matches };
    },
  },
  ...XATTR_OPS,
} satisfies Record<string, OpSpec>;

/** The name of an op of POST /fs. */
export type FsOp = keyof typeof FS_OPS;

function isFsOp(value: unknown): value is FsOp {
  return typeof value === "string" && Object.hasOwn(FS_OPS, value);
}

/** Runs the op in the body; unknown op → 400 EINVAL; a write op with a read-only token → 403. */
export async function runFsOp(
  host: ComputerContext,
  principal: Principal,
  request: Request,
): Promise<Response> {
  const body = await readJsonObject(request);
  host.requireComputer();
  const op = body.op;
  if (!isFsOp(op)) {
    throw new ApiError(
      "EINVAL",
      `unknown op ${JSON.stringify(op)}; expected one of ${Object.keys(FS_OPS).join(", ")}`,
    );
  }
  const spec: OpSpec = FS_OPS[op];
  if (spec.writes) requireWrite(principal);
  const result = spec.run(host.vfs(), body);
  if (spec.writes) await host.touched();
  return Response.json(result);
}
