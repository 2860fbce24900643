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

  it("takes the mount from the flag or the environment (the flag wins)", () => {
    expect(mountOf(["--mount", "none"])).toBe("none");
    expect(mountOf([], { COMPUTERD_HOST_MOUNT: "none" })).toBe("none");
    expect(mountOf(["--mount", "fuse3"], { COMPUTERD_HOST_MOUNT: "none" })).toBe("fuse3");
  });

  it("rejects an unknown backend", () => {
    expect(() => mountOf(["--mount", "fuse4"])).toThrow(HostConfigError);
  });
});

describe("the host's folder", () => {
  it("may not be inside a system folder every sandbox sees", () => {
    for (const dir of ["/usr/local/computer", "/etc/computer", "/bin"]) {
      expect(() => mountOf(["--dir", dir])).toThrow(/system folder/);
    }
    expect(() => mountOf(["--dir", "/var/lib/computer-host"])).not.toThrow();
  });
});

describe("the host's address", () => {
  it("listens on 127.0.0.1 only: there is no setting for another address", () => {
    const parsed = parseHostConfig(["--port", "0"], { COMPUTERD_HOST_TOKEN: TOKEN });
    expect(parsed !== "help" && parsed.listen).toBe("127.0.0.1");
    expect(() => parseHostConfig(["--listen", "0.0.0.0"], { COMPUTERD_HOST_TOKEN: TOKEN })).toThrow(
      HostConfigError,
    );
  });
});

describe("the spare daemons", () => {
  it("are one unless turned off or counted; anything else is refused", () => {
    const spareOf = (argv: string[], env: Record<string, string> = {}) => {
      const parsed = parseHostConfig(argv, { COMPUTERD_HOST_TOKEN: TOKEN, ...env });
      return parsed !== "help" && parsed.spares;
    };
    expect(spareOf([])).toBe(1);
    expect(spareOf(["--spare", "on"])).toBe(1);
    expect(spareOf(["--spare", "off"])).toBe(0);
    expect(spareOf([], { COMPUTERD_HOST_SPARE: "off" })).toBe(0);
    expect(spareOf(["--spare", "2"])).toBe(2);
    for (const bad of ["maybe", "-1", "1.5", "9", ""])
      expect(() => spareOf(["--spare", bad])).toThrow(HostConfigError);
  });
});

describe("the daemons' bundle", () => {
  it("is on unless turned off; anything else is refused", () => {
    const bundleOf = (argv: string[], env: Record<string, string> = {}) => {
      const parsed = parseHostConfig(argv, { COMPUTERD_HOST_TOKEN: TOKEN, ...env });
      return parsed !== "help" && parsed.bundle;
    };
    expect(bundleOf([])).toBe(true);
    expect(bundleOf(["--bundle", "off"])).toBe(false);
    expect(bundleOf([], { COMPUTERD_HOST_BUNDLE: "off" })).toBe(false);
    for (const bad of ["yes", "1", ""]) expect(() => bundleOf(["--bundle", bad])).toThrow(HostConfigError);
  });
});
