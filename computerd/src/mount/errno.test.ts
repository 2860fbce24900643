import { FS_ERROR_CODES, FsError } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { ERRNO, FS_ERRNO, toErrno } from "./errno.ts";

describe("errno mapping", () => {
  it("maps every vfs code to a distinct negative errno", () => {
    const values = FS_ERROR_CODES.map((code) => FS_ERRNO[code]);
    for (const v of values) expect(v).toBeLessThan(0);
    expect(new Set(values).size).toBe(values.length);
  });

  it("maps FsErrors (and error-shaped values) by code, and anything else to EIO, logged", () => {
    const logged: string[] = [];
    const log = (message: string) => logged.push(message);
    expect(toErrno(new FsError("ENOTEMPTY", "rmdir", "/d"), "rmdir", "/d", log)).toBe(-39);
    expect(toErrno({ code: "ELOOP", message: "x" }, "open", "/l", log)).toBe(-40);
    expect(logged).toEqual([]);
    expect(toErrno(new TypeError("bug"), "read", "/f", log)).toBe(ERRNO.EIO);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("read /f");
  });
});
