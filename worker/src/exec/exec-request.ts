/**
 * Validation of `POST /v1/computers/:id/exec` bodies (docs/API.md): runtime, source, cwd under
 * /workspace, env as a string map, stdin, timeoutMs. Anything malformed is 400 EINVAL.
 */
import { byteLength, PATH_MAX } from "@computer/vfs";
import { ApiError } from "../http/errors.ts";
import {
  type JsonObject,
  optionalBoolean,
  optionalInteger,
  optionalString,
  readJsonObject,
  requireString,
} from "../http/json-body.ts";
import { type ExecRequest, isRuntimeName, RUNTIME_NAMES } from "./runtime.ts";

/** The absolute directory every runtime sees the computer at. */
export const WORKSPACE_DIR = "/workspace";
/** Largest `source`: the JSON body limit applies first, this keeps the journal row small. */
export const MAX_SOURCE_BYTES = 256 * 1024;
/** Largest timeout any runtime allows (a runtime may cap lower). */
export const MAX_TIMEOUT_MS = 24 * 3600 * 1000;
/** Background processes (`detach: true`) one computer may run at once. */
export const MAX_BACKGROUND_EXECS = 8;
/** Bytes of stdout+stderr the journal keeps per exec. */
export const DEFAULT_OUTPUT_CAP = 1024 * 1024;
const MAX_ENV_VARS = 256;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The request body once checked: the runtime's ExecRequest before the manager gives it an id
 * and applies the runtime's limits (the timeout is still the asked one, undefined: the default).
 */
export interface ExecBody extends Omit<ExecRequest, "id" | "detached" | "outputCap"> {
  /** A background process (container only): the request returns at once, no default timeout. */
  detach: boolean;
}

/**
 * Normalises a cwd: absolute under /workspace, or relative to it. `.`/`..` segments, empty
 * segments other than a trailing slash, and NUL are refused, so the result can never escape.
 */
export function parseCwd(value: string | undefined): string {
  if (value === undefined || value === "") return WORKSPACE_DIR;
  if (value.includes("\0")) throw new ApiError("EINVAL", "'cwd' contains NUL");
  let rest: string;
  if (value === WORKSPACE_DIR || value === `${WORKSPACE_DIR}/`) return WORKSPACE_DIR;
  if (value.startsWith(`${WORKSPACE_DIR}/`)) rest = value.slice(WORKSPACE_DIR.length + 1);
  else if (value.startsWith("/")) throw new ApiError("EINVAL", `'cwd' must be under ${WORKSPACE_DIR}`);
  else rest = value;
  const segments = rest.replace(/\/$/, "").split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") {
      throw new ApiError("EINVAL", `'cwd' must be a plain path under ${WORKSPACE_DIR}`);
    }
  }
  const cwd = `${WORKSPACE_DIR}/${segments.join("/")}`;
  // PATH_MAX: the longest path chdir(2) takes in one call.
  if (byteLength(cwd) > PATH_MAX) throw new ApiError("ENAMETOOLONG", "'cwd' is too long");
  return cwd;
}

/** Checks `body.env`: at most 256 variables with shell-identifier names and string values without NUL. */
export function parseEnv(body: JsonObject): Record<string, string> {
  const value = body.env;
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("EINVAL", "'env' must be an object of strings");
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_ENV_VARS)
    throw new ApiError("EINVAL", `'env' has more than ${MAX_ENV_VARS} entries`);
  const env: Record<string, string> = {};
  for (const [name, v] of entries) {
    if (!ENV_NAME.test(name)) throw new ApiError("EINVAL", `'env' name ${JSON.stringify(name)} is not valid`);
    if (typeof v !== "string" || v.includes("\0")) {
      throw new ApiError("EINVAL", `'env.${name}' must be a string without NUL`);
    }
    env[name] = v;
  }
  return env;
}

/** Checks a parsed body. */
export function parseExecBody(body: JsonObject): ExecBody {
  const runtime = requireString(body, "runtime");
  if (!isRuntimeName(runtime)) {
    throw new ApiError("EINVAL", `'runtime' must be one of ${RUNTIME_NAMES.join(", ")}`);
  }
  const source = requireString(body, "source");
  if (new TextEncoder().encode(source).byteLength > MAX_SOURCE_BYTES) {
    throw new ApiError("EINVAL", `'source' is larger than ${MAX_SOURCE_BYTES} bytes`);
  }
  const detach = optionalBoolean(body, "detach") ?? false;
  if (detach && runtime !== "container") {
    throw new ApiError(
      "EINVAL",
      "'detach' needs the container runtime (shell and js execs cannot outlive their request)",
    );
  }
  return {
    runtime,
    source,
    cwd: parseCwd(optionalString(body, "cwd")),
    env: parseEnv(body),
    stdin: optionalString(body, "stdin"),
    input: body.input,
    timeoutMs: optionalInteger(body, "timeoutMs", 1, MAX_TIMEOUT_MS),
    detach,
  };
}

/** Reads and checks the body of `request`. */
export async function readExecBody(request: Request): Promise<ExecBody> {
  return parseExecBody(await readJsonObject(request));
}

/** A fresh exec id: `ex_` and 24 random hex digits. */
export function newExecId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `ex_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
