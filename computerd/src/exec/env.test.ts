/** The command environment: allowlist, per-call variables, validation, and no daemon secret. */
import { describe, expect, test } from "vitest";
import { testTable } from "../../test/exec-harness.ts";
import { baseEnv, DEFAULT_PATH, SANDBOX_HOME, sandboxBaseEnv, validateEnv } from "./env.ts";

describe("baseEnv", () => {
  test("keeps only allowlisted variables and defaults PATH", () => {
    const env = baseEnv({
      HOME: "/root",
      LANG: "C.UTF-8",
      COMPUTERD_SECRET: "s3cret",
      AWS_SECRET_ACCESS_KEY: "x",
    });
    expect(env).toEqual({ HOME: "/root", LANG: "C.UTF-8", PATH: DEFAULT_PATH });
  });
});

describe("sandboxBaseEnv", () => {
  test("keeps the locale, terminal and zone; PATH and HOME are fixed; no host path or account", () => {
    const env = sandboxBaseEnv({
      PATH: "/root/.cargo/bin:/work/repo/node_modules/.bin:/usr/bin",
      HOME: "/root",
      TMPDIR: "/work/tmp",
      SHELL: "/usr/bin/zsh",
      USER: "alice",
      LOGNAME: "alice",
      LANG: "C.UTF-8",
      TZ: "UTC",
      COMPUTERD_SECRET: "s3cret",
    });
    expect(env).toEqual({ PATH: DEFAULT_PATH, HOME: SANDBOX_HOME, LANG: "C.UTF-8", TZ: "UTC" });
  });
});

describe("validateEnv", () => {
  test("accepts identifiers with string values", () => {
    expect(validateEnv({ A: "1", _b2: "" })).toEqual({ A: "1", _b2: "" });
    expect(validateEnv(undefined)).toEqual({});
  });

  test.each([
    [{ A: 1 }],
    [{ "1A": "x" }],
    [{ "A-B": "x" }],
    [{ "A=B": "x" }],
    [{ "": "x" }],
    [{ A: "x\0y" }],
    [{ A: null }],
    [{ COMPUTERD_SECRET: "x" }],
    [["A"]],
    ["A=1"],
  ])("rejects %j", (env) => {
    expect(() => validateEnv(env)).toThrow(expect.objectContaining({ code: "EINVAL" }));
  });
});

describe("a command's environment", () => {
  test("is the allowlist plus the caller's variables and PWD, nothing else", async () => {
    const table = testTable({ baseEnv: { PATH: "/usr/bin:/bin", HOME: "/home/x" } });
    const result = await table.start({
      command: "env | sort",
      env: { GREETING: "hi there", HOME: "/override" },
    }).done;
    const vars = result.stdout
      .trim()
      .split("\n")
      .filter((line) => !/^(SHLVL|_|OLDPWD)=/.test(line));
    expect(vars).toEqual([
      "GREETING=hi there",
      "HOME=/override",
      "PATH=/usr/bin:/bin",
      expect.stringMatching(/^PWD=\//),
    ]);
  });

  test("never holds the daemon's secret, even if it was in the daemon's environment", async () => {
    const table = testTable({ baseEnv: baseEnv({ ...process.env, COMPUTERD_SECRET: "s3cret-value" }) });
    const result = await table.start({ command: "env" }).done;
    expect(result.stdout).not.toContain("s3cret-value");
    expect(result.stdout).not.toContain("COMPUTERD_SECRET");
  });
});
