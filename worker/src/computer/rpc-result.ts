/**
 * Results of DO-to-DO RPC calls. Workers RPC keeps an error's message but not its `code`,
 * so methods return `{ ok: false, error }` instead of throwing and callers rebuild the error.
 */
import { isFsError } from "@computer/vfs";
import { ApiError, type ApiErrorCode } from "../http/errors.ts";

/** The outcome of an RPC method. */
export type RpcResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: { code: ApiErrorCode; message: string; path?: string } };

/** Runs `fn`, capturing an ApiError or FsError as a failed result (anything else propagates). */
export async function capture<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof ApiError || isFsError(err)) {
      const path = err.path ?? undefined;
      return {
        ok: false,
        error:
          path === undefined
            ? { code: err.code, message: err.message }
            : { code: err.code, message: err.message, path },
      };
    }
    throw err;
  }
}

/** The value of `result`, or its error rethrown as an ApiError. */
export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw new ApiError(result.error.code, result.error.message, { path: result.error.path });
}
