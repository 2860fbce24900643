/**
 * The link URL offered with the ensure (container-connector.ts): a computerd started with it
 * dials by itself and no /connect is made; a dial that comes before the ensure has answered
 * waits for the secret it must present; one that never comes is asked for with /connect.
 */

import { env, runInDurableObject } from "cloudflare:test";
import type { ExecResult as Result } from "@computer/sdk/contract";
import { describe, expect, it } from "vitest";
import { EARLY_DIAL_MS } from "../src/container/container-connector.ts";
import { dialBack, FakeDaemonState } from "./fake-daemon.ts";
import { api, createComputer } from "./helpers.ts";
import { LinkTestLauncher } from "./link-test-launcher.ts";

async function setup(): Promise<{ id: string; launcher: LinkTestLauncher; daemon: FakeDaemonState }> {
  const id = await createComputer();
  const launcher = new LinkTestLauncher();
  launcher.dialing = true;
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useLauncher(launcher);
  });
  return { id, launcher, daemon: new FakeDaemonState() };
}

function exec(id: string, source: string): Promise<Response> {
  return api(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source }),
  });
}

/** Polls (a promise resolved inside the DO would run the test's continuation in its context). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the link URL offered with the ensure", () => {
  it("is dialed by the computerd started with it: the exec runs without a /connect", async () => {
    const ctx = await setup();
    const pending = exec(ctx.id, "out hello");
    await until(() => ctx.launcher.offered.length > 0);
    const url = `http://computer.test/v1/computers/${ctx.id}/_computerd`;
    expect(ctx.launcher.offered).toEqual([url]);
    expect(await dialBack(url, ctx.launcher.secret, ctx.daemon)).toBe(101);
    const result = (await (await pending).json()) as Result;
    expect(result).toMatchObject({ status: "completed", stdout: "hello\n" });
    expect(ctx.launcher.connectsQueued).toBe(0);
  });

  it("a dial that arrives before the ensure answered waits for the secret it must present", async () => {
    const ctx = await setup();
    let release = () => {};
    ctx.launcher.held = new Promise((resolve) => {
      release = resolve;
    });
    const pending = exec(ctx.id, "out early");
    await until(() => ctx.launcher.offered.length > 0);
    const url = ctx.launcher.offered[0] as string;
    const dialed = dialBack(url, ctx.launcher.secret, ctx.daemon);
    let answered = false;
    void dialed.then(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    expect(await dialed).toBe(101);
    expect(((await (await pending).json()) as Result).stdout).toBe("early\n");
    expect(ctx.launcher.connectsQueued).toBe(0);
  });

  it(
    "one that never comes is asked for with /connect",
    async () => {
      const ctx = await setup();
      const pending = exec(ctx.id, "out late");
      const { base } = await ctx.launcher.nextConnect();
      expect(base).toBe(ctx.launcher.offered[0]);
      expect(await dialBack(base, ctx.launcher.secret, ctx.daemon)).toBe(101);
      expect(((await (await pending).json()) as Result).stdout).toBe("late\n");
    },
    EARLY_DIAL_MS + 10_000,
  );
});
