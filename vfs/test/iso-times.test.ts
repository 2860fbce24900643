/** `toIso`: a timespec as ISO-8601, cut to the millisecond toward the past on both sides of 1970. */
import { it } from "vitest";
import { toIso } from "../src/time.ts";
import { describe, expect, vfsTest } from "./backend.ts";

describe("toIso", () => {
  it("cuts nanoseconds toward the past before 1970 (never onto the epoch)", () => {
    expect(toIso({ sec: -1, nsec: 999_999_999 })).toBe("1969-12-31T23:59:59.999Z");
    expect(toIso({ sec: -1, nsec: 0 })).toBe("1969-12-31T23:59:59.000Z");
    expect(toIso({ sec: -1, nsec: 1 })).toBe("1969-12-31T23:59:59.000Z");
    expect(toIso({ sec: -5_000_000_000, nsec: 123_456_789 })).toBe("1811-07-23T15:06:40.123Z");
  });

  it("cuts nanoseconds the same way after 1970 and past 2038", () => {
    expect(toIso({ sec: 0, nsec: 0 })).toBe("1970-01-01T00:00:00.000Z");
    expect(toIso({ sec: 0, nsec: 999_999_999 })).toBe("1970-01-01T00:00:00.999Z");
    expect(toIso({ sec: 4_102_444_800, nsec: 999_500_000 })).toBe("2100-01-01T00:00:00.999Z");
  });

  vfsTest("a stored pre-1970 mtime with nanoseconds reads back as the same ISO millisecond", (vfs) => {
    vfs.writeFile("/old", "x");
    vfs.utimes("/old", "omit", { sec: -1, nsec: 999_999_999 });
    expect(toIso(vfs.stat("/old").mtime)).toBe("1969-12-31T23:59:59.999Z");
  });
});
