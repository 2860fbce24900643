/** Every code of the API's table comes back from an error response with its code and status. */
import { describe, expect, it } from "vitest";
import { API_ERROR_CODES, HTTP_STATUS } from "./contract/errors.ts";
import { errorFromResponse, isComputerError, retryAfterSeconds } from "./error.ts";

describe("errors", () => {
  it.each(API_ERROR_CODES)("%s keeps its code, status and path", async (code) => {
    const res = Response.json(
      { error: { code, message: `m ${code}`, path: "/p" } },
      { status: HTTP_STATUS[code] },
    );
    const err = await errorFromResponse(res);
    expect(isComputerError(err)).toBe(true);
    expect({ code: err.code, status: err.status, path: err.path, message: err.message }).toEqual({
      code,
      status: HTTP_STATUS[code],
      path: "/p",
      message: `m ${code}`,
    });
  });

  it("keeps the extra fields of the error object (ESTALE's cursor)", async () => {
    const res = Response.json({ error: { code: "ESTALE", message: "old", cursor: "c42" } }, { status: 410 });
    expect((await errorFromResponse(res)).details).toEqual({ cursor: "c42" });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterSeconds("7")).toBe(7);
    expect(retryAfterSeconds(null)).toBeUndefined();
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterSeconds("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5);
    expect(retryAfterSeconds("soon")).toBeUndefined();
  });
});
