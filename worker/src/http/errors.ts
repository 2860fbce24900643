/**
 * The API's one error shape, `{ "error": { "code", "message", "path"? } }`, answered with the
 * code → HTTP status table of docs/API.md. Filesystem errors keep their POSIX code.
 */
import { type ApiErrorCode, type ErrorBody, HTTP_STATUS } from "@computer/sdk/contract";
import { type FsErrorCode, isFsError } from "@computer/vfs";

/** Every code an error response can carry, and its status: the contract's table. */
export { type ApiErrorCode, type ErrorBody, HTTP_STATUS };

/** The status of each code the vfs raises: a vfs code missing from the contract's table is a compile error. */
export const FS_STATUS: Record<FsErrorCode, number> = HTTP_STATUS;

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
