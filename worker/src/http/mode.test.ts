/** Unit tests of mode parsing and formatting. */
import { describe, expect, it } from "vitest";
import { formatMode, parseMode } from "./mode.ts";

describe("mode", () => {
  it.each<[unknown, number]>([
    ["644", 0o644],
    ["0644", 0o644],
    ["0o755", 0o755],
    ["4755", 0o4755],
    ["0", 0],
    [0o600, 0o600],
  ])("parses %j", (input, mode) => {
    expect(parseMode(input)).toBe(mode);
  });

  it.each(["", "8", "0999", "rwx", "77777", "-1", 1.5, -1, 0o10000, null, true])("refuses %j", (input) => {
    expect(() => parseMode(input)).toThrow(/octal/);
  });

  it("formats as four octal digits", () => {
    expect(formatMode(0o644)).toBe("0644");
    expect(formatMode(0o4755)).toBe("4755");
    expect(formatMode(0o100644)).toBe("0644");
  });
});
