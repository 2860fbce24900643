/** The launch spec a local launcher honours: egress all, none or an allow-list, COMPUTERD_* variables but never the secret. */
import { describe, expect, it } from "vitest";
import { localLaunchSpec } from "./computer-launcher.ts";

describe("localLaunchSpec", () => {
  it("keeps COMPUTERD_* string variables but never the secret", () => {
    expect(
      localLaunchSpec({
        egress: "all",
        env: { COMPUTERD_COMPUTER_ID: "c1", COMPUTERD_SECRET: "x", PATH: "/evil", COMPUTERD_N: 1 },
      }),
    ).toEqual({ egress: "all", egressAllow: [], env: { COMPUTERD_COMPUTER_ID: "c1" } });
  });

  it("gives the host's network only to egress all; an allow-list goes to the egress proxy", () => {
    expect(localLaunchSpec({ egress: { allow: ["example.com", "*.npmjs.org:443"] } })).toEqual({
      egress: "none",
      egressAllow: ["example.com", "*.npmjs.org:443"],
      env: {},
    });
    expect(localLaunchSpec(undefined)).toEqual({ egress: "none", egressAllow: [], env: {} });
    expect(localLaunchSpec("all")).toEqual({ egress: "none", egressAllow: [], env: {} });
  });
});
