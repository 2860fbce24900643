/** Configuration: defaults, environment, flags over environment, validation, the secret. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../test/exec-harness.ts";
import { ConfigError, helpText, OPTIONS, parseConfig, takeSecret } from "./config.ts";

const SECRET = "0123456789abcdef0123";

describe("parseConfig", () => {
  test("defaults", () => {
    const env = { COMPUTERD_SECRET: SECRET };
    const parsed = parseConfig([], env);
    expect(parsed).toEqual({
      kind: "config",
      config: {
        host: "0.0.0.0",
        port: 8080,
        mountPoint: "/workspace",
        mountBackend: "fuse3",
        stateDir: "/var/lib/computerd",
        secret: SECRET,
        execOutputCap: 1048576,
        execTimeoutMs: 300000,
        execMaxTimeoutMs: 3600000,
        execKillGraceMs: 2000,
        execSandbox: "none",
        egress: "none",
        egressAllow: "",
        sandboxUid: 65534,
        sandboxRoot: "",
        execLogDir: "",
        execRetain: 64,
        uploadIntervalMs: 150,
        dialBack: "",
      },
    });
  });

  test("environment, and flags over environment", () => {
    const env = {
      COMPUTERD_SECRET: SECRET,
      COMPUTERD_PORT: "9000",
      MOUNT_POINT: "/mnt/c",
      EXEC_SANDBOX: "bwrap",
    };
    const parsed = parseConfig(["--port", "9100", "--egress", "all"], env);
    expect(parsed.kind === "config" && parsed.config).toMatchObject({
      port: 9100,
      mountPoint: "/mnt/c",
      execSandbox: "bwrap",
      egress: "all",
    });
  });

  test.each([
    [["--port", "x"]],
    [["--exec-sandbox", "docker"]],
    [["--nope"]],
    [["positional"]],
    [["--dial-back", "ftp://do/link"]],
    [["--dial-back", "/v1/computers/c/_computerd"]],
  ])("rejects %j", (argv) => {
    expect(() => parseConfig(argv, { COMPUTERD_SECRET: SECRET })).toThrow(ConfigError);
  });

  test("--dial-back takes the link URL as /connect takes it (http, https, ws, wss)", () => {
    const url = "http://127.0.0.1:8787/v1/computers/c1/_computerd";
    const parsed = parseConfig(["--dial-back", url], { COMPUTERD_SECRET: SECRET });
    expect(parsed.kind === "config" && parsed.config.dialBack).toBe(url);
  });

  test("--help lists every option with its variable and default", () => {
    expect(parseConfig(["--help"], {})).toEqual({ kind: "help", text: helpText() });
    for (const option of OPTIONS) {
      expect(helpText()).toContain(`--${option.flag}`);
      expect(helpText()).toContain(option.env);
    }
  });
});

describe("takeSecret", () => {
  test("removes the secret from the environment it read it from", () => {
    const env: Record<string, string | undefined> = { COMPUTERD_SECRET: SECRET, PATH: "/bin" };
    expect(takeSecret(env)).toBe(SECRET);
    expect(env).toEqual({ PATH: "/bin" });
  });

  test("reads a secret file (trimmed); the file wins over the variable", () => {
    const file = join(tempDir(), "secret");
    writeFileSync(file, `${SECRET}xyz\n`);
    const env: Record<string, string | undefined> = { COMPUTERD_SECRET: SECRET, COMPUTERD_SECRET_FILE: file };
    expect(takeSecret(env)).toBe(`${SECRET}xyz`);
    expect(env).toEqual({});
  });

  test("a missing, short or unreadable secret is a configuration error", () => {
    expect(() => takeSecret({})).toThrow(ConfigError);
    expect(() => takeSecret({ COMPUTERD_SECRET: "short" })).toThrow(/at least 16/);
    expect(() => takeSecret({}, "/nonexistent/secret")).toThrow(/cannot read/);
  });
});
