/** Unit tests of URL and body path validation. */
import { PATH_MAX } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.ts";
import { MAX_PATH_BYTES, parseBodyPath, parseSymlinkTarget, parseUrlPath } from "./paths.ts";

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  return "ok";
}

describe("parseUrlPath", () => {
  it.each([
    ["", "/"],
    ["/", "/"],
    ["a", "/a"],
    ["a/b.txt", "/a/b.txt"],
    ["dir/", "/dir"],
    ["with%20space/caf%C3%A9", "/with space/café"],
    ["%2e%2e%2e", "/..."],
    ["..a/.b", "/..a/.b"],
    ["a%25b", "/a%b"],
  ])("%j → %j", (input, output) => {
    expect(parseUrlPath(input)).toBe(output);
  });

  it.each([
    [".", "EINVAL"],
    ["..", "EINVAL"],
    ["a/../b", "EINVAL"],
    ["a/./b", "EINVAL"],
    ["%2e%2e", "EINVAL"],
    ["%2E%2e/x", "EINVAL"],
    [".%2e", "EINVAL"],
    ["%2e", "EINVAL"],
    ["a//b", "EINVAL"],
    ["//", "EINVAL"],
    ["/a", "EINVAL"],
    ["a%2fb", "EINVAL"],
    ["a%2Fb", "EINVAL"],
    ["a%00", "EINVAL"],
    ["a%5cb", "EINVAL"],
    ["a\\b", "EINVAL"],
    ["%zz", "EINVAL"],
    ["%E9", "EINVAL"],
    ["x".repeat(256), "ENAMETOOLONG"],
    ["%C3%A9".repeat(128), "ENAMETOOLONG"],
    [Array.from({ length: 50 }, () => "y".repeat(250)).join("/"), "ENAMETOOLONG"],
  ])("%j → %s", (input, code) => {
    expect(codeOf(() => parseUrlPath(input))).toBe(code);
  });

  it("accepts exactly 255-byte names and MAX_PATH_BYTES-byte paths (past PATH_MAX: no depth limit)", () => {
    expect(parseUrlPath("x".repeat(255))).toHaveLength(256);
    const path = Array.from({ length: 48 }, () => "y".repeat(255)).join("/");
    expect(parseUrlPath(path)).toHaveLength(MAX_PATH_BYTES);
    expect(codeOf(() => parseUrlPath(`${path}z`))).toBe("ENAMETOOLONG");
  });
});

describe("parseBodyPath", () => {
  it.each([
    ["", "/"],
    ["/", "/"],
    ["a/b", "/a/b"],
    ["/a/b", "/a/b"],
    ["a/b/", "/a/b"],
    ["%2e%2e", "/%2e%2e"],
  ])("%j → %j", (input, output) => {
    expect(parseBodyPath(input)).toBe(output);
  });

  it.each(["..", "../a", "a/..", "./a", "a//b", "//a", "a\\b", "a\0b", "x".repeat(256)])(
    "%j is refused",
    (input) => {
      expect(codeOf(() => parseBodyPath(input))).not.toBe("ok");
    },
  );
});

describe("parseSymlinkTarget", () => {
  it("keeps any non-empty target without NUL", () => {
    expect(parseSymlinkTarget("../../x")).toBe("../../x");
    expect(codeOf(() => parseSymlinkTarget(""))).toBe("EINVAL");
    expect(codeOf(() => parseSymlinkTarget("a\0"))).toBe("EINVAL");
    expect(parseSymlinkTarget("t".repeat(PATH_MAX))).toHaveLength(PATH_MAX);
    expect(codeOf(() => parseSymlinkTarget("t".repeat(PATH_MAX + 1)))).toBe("ENAMETOOLONG");
  });
});
