/** `computerd host` settings: the mount backend default and its validation. */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultHostMount, HostConfigError, parseHostConfig } from "./host-config.ts";

const TOKEN = "host-token-0123456789";

function mountOf(argv: string[], env: Record<string, string> = {}): string {
  const parsed = parseHostConfig(argv, { COMPUTERD_HOST_TOKEN: TOKEN, ...env });
  if (parsed === "help") throw new Error("help");
  return parsed.mount;
}

describe("the host's mount backend", () => {
  it("is computerd's libfuse3 addon where /dev/fuse exists, no mount where it does not", () => {
    expect(defaultHostMount(true)).toBe("fuse3");
    expect(defaultHostMount(false)).toBe("none");
  });

  it("follows the machine when not asked for", () => {
    const expected = defaultHostMount(existsSync("/dev/fuse"));
    expect(mountOf([])).toBe(expected);
  });

  it("keeps fuse-native selectable by flag or environment (the flag wins)", () => {
    expect(mountOf(["--mount", "fuse"])).toBe("fuse");
    expect(mountOf([], { COMPUTERD_HOST_MOUNT: "fuse" })).toBe("fuse");
    expect(mountOf(["--mount", "none"], { COMPUTERD_HOST_MOUNT: "fuse" })).toBe("none");
  });

  it("rejects an unknown backend", () => {
    expect(() => mountOf(["--mount", "fuse4"])).toThrow(HostConfigError);
  });
});
