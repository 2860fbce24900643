/**
 * The API's one error shape, `{ "error": { "code", "message", "path"? } }`, and the
 * code → HTTP status table of docs/API.md. Filesystem errors keep their POSIX code.
 */
import { type FsErrorCode, isFsError } from "@computer/vfs";

/** Codes the HTTP API adds to the filesystem's POSIX codes. */
export type HttpOnlyCode =
  | "EUNAUTHORIZED"
  | "EFORBIDDEN"
  | "EUNAVAILABLE"
  | "ETIMEDOUT"
  | "ERANGE"
  | "ENOTSUP"
  | "ESTALE"
  | "EIO";

/** Every code an error response can carry. */
export type ApiErrorCode = FsErrorCode | HttpOnlyCode;

/** The status of each code. A new code without a status is a compile error. */
export const HTTP_STATUS: Record<ApiErrorCode, number> = {
  EINVAL: 400,
  ENAMETOOLONG: 400,
  ELOOP: 400,
  EXDEV: 400,
  EUNAUTHORIZED: 401,
  EFORBIDDEN: 403,
  EACCES: 403,
  EROFS: 403,
  EPERM: 403,
  ENOENT: 404,
  ENODATA: 404,
  ENOTSUP: 405,
  EEXIST: 409,
  ENOTEMPTY: 409,
  ENOTDIR: 409,
  EISDIR: 409,
  EBUSY: 409,
  EMLINK: 409,
  EFBIG: 413,
  ESTALE: 410,
  ERANGE: 416,
  EIO: 500,
  ENOSPC: 507,
  ETIMEDOUT: 503,
  EUNAVAILABLE: 503,
};

/** An error the HTTP layer raises itself; thrown anywhere below a handler and turned into a response. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly path: string | undefined;
  /** Extra response headers (`Retry-After`, `Allow`, `Content-Range`, `WWW-Authenticate`). */
  readonly headers: Record<string, string>;
  /** Extra fields of the error object (ESTALE's current `cursor`). */
  readonly details: Record<string, string>;

  constructor(
    code: ApiErrorCode,
    message: string,
    options: { path?: string; headers?: Record<string, string>; details?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.path = options.path;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }
}

/** The JSON body of an error response. */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; path?: string; [detail: string]: string | undefined };
}

/** Builds the error response for `code`; `path` is a workspace path when the error concerns one. */
export function errorResponse(
  code: ApiErrorCode,
  message: string,
  path?: string,
  headers: Record<string, string> = {},
  details: Record<string, string> = {},
): Response {
  const body: ErrorBody = {
    error: path === undefined ? { ...details, code, message } : { ...details, code, message, path },
  };
  return Response.json(body, { status: HTTP_STATUS[code], headers });
}

/**
 * Turns anything thrown by a handler into a response: an ApiError or an FsError (by its code,
 * never its class) keeps its code; anything else is our fault and becomes a 500 EIO whose
 * message does not leak internals.
 */
export function toErrorResponse(err: unknown): Response {
  if (err instanceof ApiError)
    return errorResponse(err.code, err.message, err.path, err.headers, err.details);
  if (isFsError(err)) return errorResponse(err.code, err.message, err.path ?? undefined);
  console.error("internal error", err);
  return errorResponse("EIO", "internal error");
}
