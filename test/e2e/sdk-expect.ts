/**
 * What the SDK contract suite expects of a failure: a ComputerError with the code and the
 * status of the contract's table (and the path), and the codes no request can provoke.
 */
import { ComputerError } from "@computer/sdk";
import { HTTP_STATUS } from "@computer/sdk/contract";
import { expect } from "vitest";

/**
 * Codes no request can provoke today, and why: the vfs defines them for the container's
 * FUSE mount, or they mark our own faults. The SDK's unit tests read each from a response.
 */
export const UNREACHABLE = {
  EACCES: "the vfs checks no permissions for the API (its caller is the owner)",
  EROFS: "no read-only mount exists behind the API",
  EXDEV: "one computer is one filesystem: nothing crosses devices",
  EMLINK: "the link count limit is out of reach of a test's time",
  EIO: "our own fault: no request provokes it on purpose",
  ETIMEDOUT: "exec timeouts are results (status: timeout), not HTTP errors",
  EFBIG: "the largest file is 2^53 - 1 bytes, the largest length a request can name",
  ECONNREFUSED:
    "a preview answers it from a container runtime, which this fleet has none of (previews.test.ts meets it)",
} as const;

/** The ComputerError `promise` rejects with. */
export async function failure(promise: Promise<unknown>): Promise<ComputerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ComputerError)) throw new Error(`expected a ComputerError, got ${String(err)}`);
  return err;
}

export async function expectCode(
  promise: Promise<unknown>,
  code: string,
  path?: string,
): Promise<ComputerError> {
  const err = await failure(promise);
  expect({ code: err.code, status: err.status }, err.message).toEqual({
    code,
    status: HTTP_STATUS[code as keyof typeof HTTP_STATUS],
  });
  if (path !== undefined) expect(err.path).toBe(path);
  return err;
}
