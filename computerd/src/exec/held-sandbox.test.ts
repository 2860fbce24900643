/**
 * The held sandbox's start without a root filesystem: a holder bubblewrap refuses is logged with
 * bubblewrap's own words, and commands take the per-command sandbox meanwhile, whether Node or
 * the spawner forked it. (Holders that start: rootfs-sandbox.test.ts, as root.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { HeldSandbox } from "./held-sandbox.ts";
import { Spawner } from "./spawner.ts";
import type { CommandWrapper } from "./wrapper.ts";

const spawners: Spawner[] = [];
afterEach(() => {
  for (const spawner of spawners.splice(0)) spawner.close();
});

const fallback: CommandWrapper = (input) => ({ argv: ["/bin/sh", "-c", input.command], env: input.env });

describe.each(["Node", "the spawner"])("a holder forked by %s", (by) => {
  it("that bubblewrap refuses is logged with its words; commands take the fallback", async () => {
    const spawner = by === "the spawner" ? await Spawner.start() : undefined;
    if (spawner) spawners.push(spawner);
    const logged: string[] = [];
    const held = new HeldSandbox({
      holderPlan: (tail) => ({ argv: ["bwrap", "--no-such-option", ...tail], env: {} }),
      fallback,
      home: "/root",
      log: (message) => logged.push(message),
      ...(spawner ? { spawner: async () => spawner } : {}),
    });
    await held.start();
    expect(held.holding).toBe(false);
    expect(logged.join("\n")).toMatch(
      /the held sandbox did not start: it exited \(1\) bwrap: .*no-such-option/,
    );
    const plan = held.wrapper()({ command: "true", cwd: "/", env: {} });
    expect(plan.argv).toEqual(["/bin/sh", "-c", "true"]);
    held.close();
  });
});
