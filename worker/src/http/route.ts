/**
 * The URL → route table of docs/API.md. Parsing validates computer ids, file paths, names
 * and query parameters, so handlers receive typed, checked values (or an ApiError was thrown).
 */
import { COMPUTER_ID } from "@computer/sdk/computer-id";
import { ARTIFACT_NAME } from "../artifacts/names.ts";
import { ApiError } from "./errors.ts";
import { parseMode } from "./mode.ts";
import { parseBodyPath, parseUrlPath } from "./paths.ts";

/** A checkpoint name. */
export const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const EXEC_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TERMINAL_ID = /^tm_[0-9a-f]{24}$/;
/** Longest lifetime of an artifact link (365 days; see artifacts/signed-url.ts). */
const MAX_TTL_SECONDS = 365 * 24 * 60 * 60;

/** A route under `/v1/computers/:id`, handled by that computer's DO. */
export type ComputerRoute =
  | { kind: "computer.put" }
  | { kind: "computer.get" }
  | { kind: "computer.delete" }
  | { kind: "tokens.create" }
  | { kind: "tokens.revoke" }
  | { kind: "files.put"; path: string; mode: number | undefined }
  | { kind: "files.get"; path: string; after: string | undefined; limit: number | undefined }
  | { kind: "files.head"; path: string }
  | { kind: "files.delete"; path: string; recursive: boolean }
  | { kind: "fs" }
  | { kind: "checkpoints.create" }
  | { kind: "checkpoints.list" }
  | { kind: "checkpoints.restore"; name: string }
  | { kind: "fork" }
  | { kind: "exec.start" }
  | { kind: "exec.list"; limit: number }
  | { kind: "exec.get"; execId: string; follow: boolean; after: number | undefined }
  | { kind: "exec.kill"; execId: string }
  | { kind: "artifacts.publish" }
  | { kind: "changes"; after: string; limit: number | undefined; path: string }
  | { kind: "terminals.create" }
  | { kind: "terminals.list" }
  | { kind: "terminals.get"; terminalId: string }
  | { kind: "terminals.kill"; terminalId: string }
  | { kind: "ports.open" }
  | { kind: "ports.list" }
  | { kind: "ports.close"; port: number };

/** Every route of the API. */
export type Route =
  | { kind: "health" }
  | { kind: "health.head" }
  | { kind: "openapi" }
  | { kind: "computers.list"; after: string | undefined; limit: number }
  | { kind: "artifacts.list"; after: string | undefined; limit: number }
  | { kind: "artifacts.get"; name: string; ttlSeconds: number | undefined }
  | { kind: "mcp" | "mcp.get" | "mcp.delete"; id: string }
  | { kind: "computer"; id: string; route: ComputerRoute };

type Handlers<T> = Partial<Record<string, () => T>>;

function byMethod<T>(method: string, handlers: Handlers<T>): T {
  const handler = handlers[method];
  if (handler === undefined) {
    const allow = Object.keys(handlers).join(", ");
    throw new ApiError("ENOTSUP", `method ${method} not allowed here`, { headers: { Allow: allow } });
  }
  return handler();
}

function notFound(pathname: string): never {
  throw new ApiError("ENOENT", `no such route: ${pathname}`);
}

function decodeSegment(raw: string, what: string, pattern: RegExp): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw new ApiError("EINVAL", `malformed ${what}`);
  }
  if (!pattern.test(value)) throw new ApiError("EINVAL", `invalid ${what}: must match ${pattern.source}`);
  return value;
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === "0" || value === "false") return false;
  if (value === "1" || value === "true" || value === "") return true;
  throw new ApiError("EINVAL", `'${name}' must be 1 or 0`);
}

function limitParam(query: URLSearchParams, max: number): number | undefined {
  const value = query.get("limit");
  if (value === null) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > max) throw new ApiError("EINVAL", `'limit' must be 1..${max}`);
  return n;
}

function ttlParam(query: URLSearchParams): number | undefined {
  const value = query.get("ttlSeconds");
  if (value === null) return undefined;
  const n = Number(value);
  if (!/^\d{1,9}$/.test(value) || n < 1 || n > MAX_TTL_SECONDS) {
    throw new ApiError("EINVAL", `'ttlSeconds' must be 1..${MAX_TTL_SECONDS}`);
  }
  return n;
}

function afterSeq(query: URLSearchParams): number | undefined {
  const value = query.get("after");
  if (value === null) return undefined;
  if (!/^(-1|\d{1,15})$/.test(value)) throw new ApiError("EINVAL", "'after' must be a seq (an integer ≥ -1)");
  return Number(value);
}

function parseFilesRoute(method: string, encodedPath: string, query: URLSearchParams): ComputerRoute {
  const path = parseUrlPath(encodedPath);
  return byMethod<ComputerRoute>(method, {
    GET: () => ({
      kind: "files.get",
      path,
      after: query.get("after") ?? undefined,
      limit: limitParam(query, 10000),
    }),
    HEAD: () => ({ kind: "files.head", path }),
    PUT: () => {
      const mode = query.get("mode");
      return { kind: "files.put", path, mode: mode === null ? undefined : parseMode(mode) };
    },
    DELETE: () => ({ kind: "files.delete", path, recursive: flag(query, "recursive") }),
  });
}

function parseComputerRoute(
  method: string,
  rest: string[],
  pathname: string,
  query: URLSearchParams,
): ComputerRoute {
  const [head, second, third, ...more] = rest;
  if (head === undefined) {
    return byMethod<ComputerRoute>(method, {
      PUT: () => ({ kind: "computer.put" }),
      GET: () => ({ kind: "computer.get" }),
      DELETE: () => ({ kind: "computer.delete" }),
    });
  }
  if (head === "files") return parseFilesRoute(method, rest.slice(1).join("/"), query);
  if (head === "fs" && second === undefined) return byMethod(method, { POST: () => ({ kind: "fs" }) });
  if (head === "fork" && second === undefined) return byMethod(method, { POST: () => ({ kind: "fork" }) });
  if (head === "tokens" && second === undefined) {
    return byMethod<ComputerRoute>(method, {
      POST: () => ({ kind: "tokens.create" }),
      DELETE: () => ({ kind: "tokens.revoke" }),
    });
  }
  if (head === "ports") {
    if (second === undefined) {
      return byMethod<ComputerRoute>(method, {
        POST: () => ({ kind: "ports.open" }),
        GET: () => ({ kind: "ports.list" }),
      });
    }
    if (third === undefined) {
      const port = /^\d{1,5}$/.test(second) ? Number(second) : 0;
      if (port < 1 || port > 65535)
        throw new ApiError("EINVAL", "the port must be an integer from 1 to 65535");
      return byMethod(method, { DELETE: () => ({ kind: "ports.close", port }) });
    }
  }
  if (head === "artifacts" && second === undefined) {
    return byMethod(method, { POST: () => ({ kind: "artifacts.publish" }) });
  }
  if (head === "terminals") {
    if (second === undefined) {
      return byMethod<ComputerRoute>(method, {
        POST: () => ({ kind: "terminals.create" }),
        GET: () => ({ kind: "terminals.list" }),
      });
    }
    if (third === undefined) {
      const terminalId = decodeSegment(second, "terminal id", TERMINAL_ID);
      return byMethod<ComputerRoute>(method, {
        GET: () => ({ kind: "terminals.get", terminalId }),
        DELETE: () => ({ kind: "terminals.kill", terminalId }),
      });
    }
  }
  if (head === "changes" && second === undefined) {
    return byMethod<ComputerRoute>(method, {
      GET: () => ({
        kind: "changes",
        after: query.get("after") ?? "0",
        limit: limitParam(query, 1000),
        path: parseBodyPath(query.get("path") ?? "/"),
      }),
    });
  }
  if (head === "checkpoints") {
    if (second === undefined) {
      return byMethod<ComputerRoute>(method, {
        POST: () => ({ kind: "checkpoints.create" }),
        GET: () => ({ kind: "checkpoints.list" }),
      });
    }
    if (third === "restore" && more.length === 0) {
      const name = decodeSegment(second, "checkpoint name", CHECKPOINT_NAME);
      return byMethod(method, { POST: () => ({ kind: "checkpoints.restore", name }) });
    }
  }
  if (head === "exec") {
    if (second === undefined) {
      return byMethod<ComputerRoute>(method, {
        POST: () => ({ kind: "exec.start" }),
        GET: () => ({ kind: "exec.list", limit: limitParam(query, 100) ?? 20 }),
      });
    }
    if (third === undefined) {
      const execId = decodeSegment(second, "exec id", EXEC_ID);
      return byMethod<ComputerRoute>(method, {
        GET: () => ({ kind: "exec.get", execId, follow: flag(query, "follow"), after: afterSeq(query) }),
        DELETE: () => ({ kind: "exec.kill", execId }),
      });
    }
  }
  return notFound(pathname);
}

/**
 * Parses `method` and `url` into a Route. Throws ApiError: 404 ENOENT for an unknown path,
 * 405 ENOTSUP (with `Allow`) for a known path and another method, 400 EINVAL / ENAMETOOLONG
 * for a bad computer id, file path, name or query parameter.
 */
export function parseRoute(method: string, url: URL): Route {
  const { pathname } = url;
  if (pathname === "/healthz") {
    return byMethod<Route>(method, {
      GET: () => ({ kind: "health" }),
      HEAD: () => ({ kind: "health.head" }),
    });
  }
  const segments = pathname.split("/").slice(1);
  if (segments[0] !== "v1") return notFound(pathname);
  const [, group, id, ...rest] = segments;
  if (group === "openapi.json" && id === undefined)
    return byMethod(method, { GET: () => ({ kind: "openapi" }) });
  if (group === "artifacts") {
    const query = url.searchParams;
    if (id === undefined || (id === "" && rest.length === 0)) {
      return byMethod<Route>(method, {
        GET: () => ({
          kind: "artifacts.list",
          after: query.get("after") ?? undefined,
          limit: limitParam(query, 1000) ?? 100,
        }),
      });
    }
    if (rest.length === 0) {
      const name = decodeSegment(id, "artifact name", ARTIFACT_NAME);
      return byMethod<Route>(method, {
        GET: () => ({ kind: "artifacts.get", name, ttlSeconds: ttlParam(query) }),
      });
    }
  }
  if (group !== "computers") return notFound(pathname);
  if (id === undefined || (id === "" && rest.length === 0)) {
    const query = url.searchParams;
    return byMethod<Route>(method, {
      GET: () => ({
        kind: "computers.list",
        after: query.get("after") ?? undefined,
        limit: limitParam(query, 100) ?? 50,
      }),
    });
  }
  if (!COMPUTER_ID.test(id)) {
    throw new ApiError("EINVAL", `invalid computer id: must match ${COMPUTER_ID.source}`);
  }
  if (rest.length === 1 && rest[0] === "mcp") {
    return byMethod<Route>(method, {
      POST: () => ({ kind: "mcp", id }),
      GET: () => ({ kind: "mcp.get", id }),
      DELETE: () => ({ kind: "mcp.delete", id }),
    });
  }
  return { kind: "computer", id, route: parseComputerRoute(method, rest, pathname, url.searchParams) };
}
