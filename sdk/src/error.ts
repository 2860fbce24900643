/**
 * The SDK's one error: the API's POSIX-like `code`, the HTTP `status` and the workspace `path`
 * it concerns. Callers branch on `code` (see docs/API.md "Errors"), never on `message`.
 */
import { type ApiErrorCode, isApiErrorCode } from "./contract/errors.ts";

/** Codes the SDK raises itself, beside the API's: the server was not reached or answered nonsense. */
export type ClientErrorCode = "ECONNREFUSED" | "EPROTO" | "EABORTED";

/** Every code a ComputerError carries. */
export type ComputerErrorCode = ApiErrorCode | ClientErrorCode;

/** An error answered by the API (status ≥ 400) or met on the way to it (status 0). */
export class ComputerError extends Error {
  readonly code: ComputerErrorCode;
  /** The HTTP status; 0 when no answer arrived (ECONNREFUSED, EABORTED). */
  readonly status: number;
  /** The workspace path the error concerns, when the API named one. */
  readonly path: string | undefined;
  /** Seconds the server asked to wait (`Retry-After` of a 503). */
  readonly retryAfter: number | undefined;
  /** Extra fields of the API's error object (ESTALE: the current `cursor`). */
  readonly details: Record<string, string>;

  constructor(
    code: ComputerErrorCode,
    message: string,
    options: {
      status?: number;
      path?: string;
      retryAfter?: number;
      details?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ComputerError";
    this.code = code;
    this.status = options.status ?? 0;
    this.path = options.path;
    this.retryAfter = options.retryAfter;
    this.details = options.details ?? {};
  }
}

/** True for a ComputerError (by shape, so one from another copy of the SDK counts too). */
export function isComputerError(value: unknown): value is ComputerError {
  return (
    value instanceof Error &&
    typeof (value as { code?: unknown }).code === "string" &&
    typeof (value as { status?: unknown }).status === "number"
  );
}

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), if any. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

// A HEAD answer has no body: its status alone names the code.
const HEAD_CODES: Partial<Record<number, ApiErrorCode>> = {
  400: "EINVAL",
  401: "EUNAUTHORIZED",
  403: "EFORBIDDEN",
  404: "ENOENT",
  405: "ENOTSUP",
  503: "EUNAVAILABLE",
};

/**
 * The ComputerError of an error response: the API's JSON shape; for a HEAD request the
 * status's usual code; anything else (a proxy's page) is EPROTO with the status.
 */
export async function errorFromResponse(res: Response, method = "GET"): Promise<ComputerError> {
  const retryAfter = retryAfterSeconds(res.headers.get("retry-after"));
  const text = res.status === 304 || res.body === null ? "" : await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  if (error !== undefined && isApiErrorCode(error.code)) {
    const details: Record<string, string> = {};
    for (const [key, value] of Object.entries(error)) {
      if (key !== "code" && key !== "message" && key !== "path" && typeof value === "string")
        details[key] = value;
    }
    return new ComputerError(error.code, typeof error.message === "string" ? error.message : error.code, {
      status: res.status,
      details,
      ...(typeof error.path === "string" ? { path: error.path } : {}),
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
  }
  const headCode = method === "HEAD" ? HEAD_CODES[res.status] : undefined;
  if (headCode !== undefined) return new ComputerError(headCode, headCode, { status: res.status });
  const shown = text.trim().slice(0, 200) || res.statusText;
  return new ComputerError("EPROTO", `unexpected answer ${res.status}${shown ? `: ${shown}` : ""}`, {
    status: res.status,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
}
