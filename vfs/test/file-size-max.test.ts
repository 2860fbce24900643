/**
 * Positions past FILE_SIZE_MAX are EFBIG, as Linux answers for offsets and lengths beyond the
 * largest file size; malformed ones (negative, fractional, not finite) stay EINVAL.
 */
import { FILE_SIZE_MAX } from "../src/limits.ts";
import { describe, expect, vfsTest } from "./backend.ts";
import { expectFails } from "./snapshot.ts";

describe("the largest file size", () => {
  vfsTest("truncate past it is EFBIG (not EINVAL), up to it is a hole", (vfs, { sql }) => {
    vfs.writeFile("/f", "abc");
    expectFails(sql, "EFBIG", () => vfs.truncate("/f", FILE_SIZE_MAX + 1));
    expectFails(sql, "EFBIG", () => vfs.truncate("/f", 2 ** 60));
    expect(vfs.truncate("/f", FILE_SIZE_MAX).size).toBe(FILE_SIZE_MAX);
    expect(vfs.stat("/f").allocated).toBe(3);
  });

  vfsTest("pwrite at an offset past it is EFBIG; ending past it is EFBIG too", (vfs, { sql }) => {
    vfs.writeFile("/f", "abc");
    expectFails(sql, "EFBIG", () => vfs.pwrite("/f", 2 ** 53, "x"));
    expectFails(sql, "EFBIG", () => vfs.pwrite("/f", FILE_SIZE_MAX, "x"));
    expect(vfs.readText("/f")).toBe("abc");
  });

  vfsTest("malformed positions stay EINVAL", (vfs, { sql }) => {
    vfs.writeFile("/f", "abc");
    expectFails(sql, "EINVAL", () => vfs.truncate("/f", -1));
    expectFails(sql, "EINVAL", () => vfs.truncate("/f", 1.5));
    expectFails(sql, "EINVAL", () => vfs.truncate("/f", Number.POSITIVE_INFINITY));
    expectFails(sql, "EINVAL", () => vfs.truncate("/f", Number.NaN));
    expectFails(sql, "EINVAL", () => vfs.pwrite("/f", -(2 ** 60), "x"));
    expectFails(sql, "EINVAL", () => vfs.pwrite("/f", Number.POSITIVE_INFINITY, "x"));
  });
});
