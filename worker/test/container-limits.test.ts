/**
 * The computer's quota reaches computerd: with the first push for a command on a link (so a new
 * link knows it before anything runs; later pushes on it send it only when it changed) and at
 * once when `PUT /v1/computers/:id` changes it. An upload the
 * DO's quota refuses is still refused; the exec says so (ENOSPC, sync pending) and the next
 * exec syncs once the container's changes fit.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { QUOTA_REFUSED } from "../src/container/container-runtime.ts";
import { dialBack, FakeDaemonState } from "./fake-daemon.ts";
import { api, apiJson, createComputer, expectError, writeFile } from "./helpers.ts";
import { LinkTestLauncher } from "./link-test-launcher.ts";

interface Result {
  id: string;
  status: string;
  exitCode: number | null;
  sync: { status: string; rev?: number };
  error?: { code: string; message: string };
}

async function setup(quotaBytes?: number) {
  const id = await createComputer(quotaBytes === undefined ? {} : { quotaBytes });
  const launcher = new LinkTestLauncher();
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useLauncher(launcher);
  });
  return { id, launcher, daemon: new FakeDaemonState() };
}

type Ctx = Awaited<ReturnType<typeof setup>>;

async function exec(ctx: Ctx, source: string, connect = false): Promise<Result> {
  const res = api(`/v1/computers/${ctx.id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source }),
  });
  if (connect) {
    const { base } = await ctx.launcher.nextConnect();
    expect(await dialBack(base, ctx.launcher.secret, ctx.daemon)).toBe(101);
  }
  return (await (await res).json()) as Result;
}

async function usage(id: string): Promise<{ usedBytes: number; quotaBytes: number | null }> {
  return (await (await api(`/v1/computers/${id}`)).json()) as {
    usedBytes: number;
    quotaBytes: number | null;
  };
}

describe("the quota in the container", () => {
  it("is sent before the first command on a link, and not again while it is unchanged", async () => {
    const ctx = await setup(123_456);
    expect(await exec(ctx, "out one", true)).toMatchObject({ status: "completed" });
    expect(ctx.daemon.limits).toEqual([{ quotaBytes: 123_456 }]);
    expect(await exec(ctx, "out two")).toMatchObject({ status: "completed" });
    expect(ctx.daemon.limits).toEqual([{ quotaBytes: 123_456 }]);
  });

  it("a quota change reaches a connected computerd at once; no link, no call", async () => {
    const ctx = await setup();
    const offline = await apiJson("PUT", `/v1/computers/${ctx.id}`, { quotaBytes: 50_000 });
    expect(offline.status).toBe(200);
    await exec(ctx, "out x", true);
    expect(ctx.daemon.limits).toEqual([{ quotaBytes: 50_000 }]);
    const res = await apiJson("PUT", `/v1/computers/${ctx.id}`, { quotaBytes: 70_000 });
    expect(res.status).toBe(200);
    expect(ctx.daemon.limits.at(-1)).toEqual({ quotaBytes: 70_000 });
    // Changing only the egress sends nothing.
    const egress = await apiJson("PUT", `/v1/computers/${ctx.id}`, { egress: "none" });
    expect(egress.status).toBe(200);
    expect(ctx.daemon.limits).toHaveLength(2);
  });

  it("an upload past the DO's quota is refused: ENOSPC in the result, nothing applied, next exec syncs", async () => {
    const ctx = await setup();
    await writeFile(ctx.id, "a.txt", "x".repeat(10_000));
    const before = await usage(ctx.id);
    await apiJson("PUT", `/v1/computers/${ctx.id}`, { quotaBytes: before.usedBytes + 1000 });
    const refused = await exec(ctx, "upload /a.txt /copy.txt\nout done", true);
    expect(refused).toMatchObject({
      status: "completed",
      exitCode: 0,
      sync: { status: "pending" },
      error: { code: "ENOSPC", message: QUOTA_REFUSED },
    });
    await expectError(await api(`/v1/computers/${ctx.id}/files/copy.txt`), 404, "ENOENT");
    expect((await usage(ctx.id)).usedBytes).toBe(before.usedBytes);
    // The container dropped the change (as when the user deletes the file): the next exec syncs.
    const next = await exec(ctx, "out again");
    expect(next).toMatchObject({ status: "completed", sync: { status: "complete" } });
    expect(next.error).toBeUndefined();
    // That fence uploaded everything the container held: the refused exec's sync is complete
    // too, at once, not when the retry alarm next runs.
    const earlier = (await (await api(`/v1/computers/${ctx.id}/exec/${refused.id}`)).json()) as Result;
    expect(earlier.sync).toEqual({ status: "complete", rev: next.sync.rev, conflicts: [] });
  });
});
