/** Every validator accepts what Cloudflare and SSH accept and names the input it rejects. */
import { describe, expect, it } from "vitest";
import {
  FleetArgError,
  validateAccountId,
  validateAdminToken,
  validateBucketName,
  validateExposure,
  validateHostname,
  validateImageBuildHost,
  validateInstanceType,
  validateMaxInstances,
  validatePort,
  validatePrivateKey,
  validateRemoteDir,
  validateRoutePattern,
  validateSshHost,
  validateSshUser,
  validateWorkerName,
  validateZoneId,
} from "./validate.ts";

/** Asserts that `run` throws a FleetArgError about `input`. */
function rejects(run: () => unknown, input: string): void {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(FleetArgError);
  expect((error as FleetArgError).input).toBe(input);
  expect((error as FleetArgError).message).toContain(`ComputerFleet ${input}:`);
}

const HEX32 = "0123456789abcdef0123456789abcdef";

describe("account and zone ids", () => {
  it("accept 32 lower-case hex digits", () => {
    expect(validateAccountId(HEX32)).toBe(HEX32);
    expect(validateZoneId(HEX32)).toBe(HEX32);
  });

  it.each(["", "0123", HEX32.toUpperCase(), `${HEX32}0`, `${HEX32.slice(1)}g`])("reject %j", (value) => {
    rejects(() => validateAccountId(value), "accountId");
    rejects(() => validateZoneId(value), "route.zoneId");
  });
});

describe("worker and bucket names", () => {
  it("accept lower-case names with inner dashes", () => {
    expect(validateWorkerName("computer")).toBe("computer");
    expect(validateWorkerName("a")).toBe("a");
    expect(validateWorkerName("my-fleet-2")).toBe("my-fleet-2");
    expect(validateBucketName("my-fleet-artifacts")).toBe("my-fleet-artifacts");
  });

  it.each(["", "Computer", "-a", "a-", "a_b", "a.b", "x".repeat(64)])(
    "reject the worker name %j",
    (value) => {
      rejects(() => validateWorkerName(value), "workerName");
    },
  );

  it.each(["ab", "AB-c", "-abc", "abc-", "a_bc", "x".repeat(64)])("reject the bucket name %j", (value) => {
    rejects(() => validateBucketName(value), "bucketName");
  });
});

describe("container sizing", () => {
  it("accepts the known instance types and 1..10000 instances", () => {
    expect(validateInstanceType("standard-2")).toBe("standard-2");
    expect(validateMaxInstances(1)).toBe(1);
    expect(validateMaxInstances(10_000)).toBe(10_000);
  });

  it.each(["", "standard", "standard-9", "LITE"])("rejects the instance type %j", (value) => {
    rejects(() => validateInstanceType(value), "instanceType");
  });

  it.each([0, -1, 1.5, 10_001, Number.NaN])("rejects %d instances", (value) => {
    rejects(() => validateMaxInstances(value), "maxInstances");
  });
});

describe("admin token", () => {
  it("accepts 32+ printable characters", () => {
    expect(validateAdminToken("a".repeat(32))).toHaveLength(32);
  });

  it("rejects a short token without echoing it", () => {
    rejects(() => validateAdminToken("short-secret"), "adminToken");
    expect(() => validateAdminToken("short-secret")).toThrow(/^(?!.*short-secret)/);
  });

  it("rejects whitespace and non-ASCII", () => {
    rejects(() => validateAdminToken(`${"a".repeat(32)} b`), "adminToken");
    rejects(() => validateAdminToken(`${"a".repeat(32)}é`), "adminToken");
  });
});

describe("domains and routes", () => {
  it("accepts host names (lower-cased) and route patterns", () => {
    expect(validateHostname("Computer.Example.com")).toBe("computer.example.com");
    expect(validateRoutePattern("example.com/computer/*")).toBe("example.com/computer/*");
    expect(validateRoutePattern("*.example.com/*")).toBe("*.example.com/*");
    expect(validateRoutePattern("computer.example.com/")).toBe("computer.example.com/");
  });

  it.each(["localhost", "https://x.example.com", "x..example.com", "-x.example.com", "x example.com"])(
    "rejects the host %j",
    (value) => rejects(() => validateHostname(value), "customDomain"),
  );

  it.each([
    "example.com",
    "https://example.com/*",
    "example.com/a*b",
    "ex ample.com/*",
    "example.com/?q=1",
    "*/x",
  ])("rejects the route %j", (value) => rejects(() => validateRoutePattern(value), "route.pattern"));

  it("refuses a custom domain together with a route", () => {
    expect(() => validateExposure(undefined, undefined)).not.toThrow();
    expect(() => validateExposure({ hostname: "a.b" }, undefined)).not.toThrow();
    rejects(() => validateExposure({ hostname: "a.b" }, { pattern: "a.b/*" }), "customDomain");
  });
});

describe("benchmark host", () => {
  it("accepts host names, IPv4 and IPv6 addresses, users, ports, keys and directories", () => {
    expect(validateSshHost("bench.example.com")).toBe("bench.example.com");
    expect(validateSshHost("192.0.2.10")).toBe("192.0.2.10");
    expect(validateSshHost("2001:db8::1")).toBe("2001:db8::1");
    expect(validateSshUser("ubuntu")).toBe("ubuntu");
    expect(validatePort(2222)).toBe(2222);
    const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----\n";
    expect(validatePrivateKey(key)).toBe(key);
    expect(validateRemoteDir("/mnt/nvme0/computer-bench", "benchmark.diskDir")).toBe(
      "/mnt/nvme0/computer-bench",
    );
  });

  it.each(["", "bench host", "host;rm", "-oProxyCommand=x", "999.1.1.1"])("rejects the host %j", (value) => {
    rejects(() => validateSshHost(value), "benchmark.host");
  });

  it.each(["", "Root", "a b", "1user", "u;x"])("rejects the user %j", (value) => {
    rejects(() => validateSshUser(value), "benchmark.user");
  });

  it.each([0, 65536, 22.5])("rejects the port %d", (value) => {
    rejects(() => validatePort(value), "benchmark.port");
  });

  it("rejects a key that is not a private key", () => {
    rejects(() => validatePrivateKey("ssh-ed25519 AAAA... user@host"), "benchmark.privateKey");
  });

  it.each(["relative/dir", "/a/../etc", "/a b", "/a;rm -rf /", "/$(x)"])(
    "rejects the directory %j",
    (value) => {
      rejects(() => validateRemoteDir(value, "benchmark.workDir"), "benchmark.workDir");
    },
  );
});

describe("image build host", () => {
  it("builds the image on linux-x64 and takes a prebuilt image anywhere", () => {
    expect(() => validateImageBuildHost("linux", "x64", undefined)).not.toThrow();
    expect(() => validateImageBuildHost("darwin", "arm64", "registry.example.com/c:1")).not.toThrow();
  });

  it.each([
    ["darwin", "arm64"],
    ["linux", "arm64"],
    ["win32", "x64"],
  ])("refuses to build it on %s-%s", (platform, arch) => {
    rejects(() => validateImageBuildHost(platform, arch, undefined), "containerImage");
  });
});
