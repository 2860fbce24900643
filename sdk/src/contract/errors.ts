/**
 * The API's error codes and the HTTP status of each (docs/API.md "Errors"): the one owner of
 * that table. The Worker and computerd's HTTP API answer with it, the SDK reads it back, the
 * OpenAPI document lists it. It imports nothing, so computerd's image carries this file alone
 * (`@computer/sdk/errors`).
 */

/** Every code an error response can carry: the filesystem's POSIX codes and the HTTP layer's own. */
export const API_ERROR_CODES = [
  "EINVAL",
  "ENAMETOOLONG",
  "ELOOP",
  "EXDEV",
  "EUNAUTHORIZED",
  "EFORBIDDEN",
  "EACCES",
  "EROFS",
  "EPERM",
  "ENOENT",
  "ENODATA",
  "ENOTSUP",
  "EEXIST",
  "ENOTEMPTY",
  "ENOTDIR",
  "EISDIR",
  "EBUSY",
  "EMLINK",
  "EFBIG",
  "ESTALE",
  "ERANGE",
  "EIO",
  "ECONNREFUSED",
  "ENOSPC",
  "ETIMEDOUT",
  "EUNAVAILABLE",
] as const;

/** A code of the API's error responses. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

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
  ECONNREFUSED: 502,
  ENOSPC: 507,
  ETIMEDOUT: 503,
  EUNAVAILABLE: 503,
};

/** True for a code of the API's table. */
export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === "string" && Object.hasOwn(HTTP_STATUS, value);
}

/** The JSON body of every error response; some codes add fields (ESTALE: the current `cursor`). */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; path?: string; [detail: string]: string | undefined };
}
