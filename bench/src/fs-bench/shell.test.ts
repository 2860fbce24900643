/** The scenarios' environment: fixed, but with the host's way to the npm registry. */
import { describe, expect, it } from "vitest";
import { scenarioEnv } from "./shell.ts";

describe("scenarioEnv", () => {
  it("drops the caller's variables but keeps its proxy and extra CA bundle where set", () => {
    const env = scenarioEnv({
      HOME: "/home/x",
      npm_lifecycle_event: "bench",
      GIT_DIR: "/elsewhere",
      HTTPS_PROXY: "http://proxy.invalid:3128",
      HTTP_PROXY: "",
      NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/extra.crt",
    });
    expect(env.HOME).toBe("/home/x");
    expect(env.HTTPS_PROXY).toBe("http://proxy.invalid:3128");
    expect(env.NODE_EXTRA_CA_CERTS).toBe("/etc/ssl/certs/extra.crt");
    expect(Object.keys(env)).not.toContain("HTTP_PROXY");
    expect(Object.keys(env)).not.toContain("npm_lifecycle_event");
    expect(Object.keys(env)).not.toContain("GIT_DIR");
    expect(env.PATH).toBe("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  });

  it("is the fixed set alone where the host sets none of them", () => {
    expect(Object.keys(scenarioEnv({})).sort()).toEqual(
      [
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TZ",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "npm_config_update_notifier",
      ].sort(),
    );
  });
});
