/**
 * The container runtime over the real link: the DO asks a (fake) launcher for computerd, calls
 * `/connect`, the test dials back through the Worker like computerd and serves a fake DaemonApi.
 * Checked: dial-back auth, push before the command, output streaming, fence with upload applied
 * in the DO before the result, `pending` and its durable retry by the alarm, kill, lost link,
 * relaunch on an egress change, and delete tearing the container down.
 */

import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { ExecResult as Result } from "@computer/sdk/contract";
import { describe, expect, it } from "vitest";
import { dialBack, FakeDaemonState } from "./fake-daemon.ts";
import { api, apiJson, createComputer, expectError, readText, writeFile } from "./helpers.ts";
import { LinkTestLauncher } from "./link-test-launcher.ts";
import { dataOf, readFrames } from "./sse.ts";

async function setup(): Promise<{ id: string; launcher: LinkTestLauncher; daemon: FakeDaemonState }> {
  const id = await createComputer();
  const launcher = new LinkTestLauncher();
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useLauncher(launcher);
  });
  return { id, launcher, daemon: new FakeDaemonState() };
}

function exec(id: string, source: string, sse = false): Promise<Response> {
  return api(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(sse ? { Accept: "text/event-stream" } : {}) },
    body: JSON.stringify({ runtime: "container", source }),
  });
}

/** Starts an exec and plays computerd's side of the first connect. */
async function execConnected(
  ctx: { id: string; launcher: LinkTestLauncher; daemon: FakeDaemonState },
  source: string,
  sse = false,
): Promise<Response> {
  const pending = exec(ctx.id, source, sse);
  const { base } = await ctx.launcher.nextConnect();
  expect(base).toBe(`http://computer.test/v1/computers/${ctx.id}/_computerd`);
  expect(await dialBack(base, ctx.launcher.secret, ctx.daemon)).toBe(101);
  return pending;
}

describe("container runtime over the computerd link", () => {
  it("pushes before the command, streams output, applies the upload before answering", async () => {
    const ctx = await setup();
    await writeFile(ctx.id, "a.txt", "from the API");
    const res = await execConnected(ctx, "out started\nupload /a.txt /copy.txt\nsleep 300\nout done", true);
    expect(ctx.daemon.pushed.get("/a.txt")?.stat?.type).toBe("file");
    const frames = await readFrames(res);
    expect(frames.map((f) => f.event)).toEqual(["stdout", "stdout", "exit"]);
    expect((frames[2]?.at ?? 0) - (frames[0]?.at ?? 0)).toBeGreaterThan(200);
    const result = dataOf<Result>(frames[2]);
    expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "started\ndone\n" });
    expect(result.sync.status).toBe("complete");
    expect(result.sync.rev).toBeGreaterThan(0);
    expect(await readText(ctx.id, "copy.txt")).toBe("from the API");
    // The cwd goes relative to the workspace: computerd knows where its workspace is mounted.
    expect(ctx.daemon.execs[0]).toMatchObject({ id: result.id, cwd: ".", timeoutMs: 600_000 });
    // The link stays up: the next exec neither relaunches nor reconnects.
    await writeFile(ctx.id, "b.txt", "second");
    const second = (await (await exec(ctx.id, "out again")).json()) as Result;
    expect(second).toMatchObject({ status: "completed", stdout: "again\n", sync: { status: "complete" } });
    expect(ctx.daemon.pushed.has("/b.txt")).toBe(true);
    expect(ctx.launcher.specs).toHaveLength(1);
  });

  it("concurrent first execs share one launch, one /connect and one dial-back", async () => {
    const ctx = await setup();
    const first = exec(ctx.id, "out one");
    const second = exec(ctx.id, "out two");
    const { base } = await ctx.launcher.nextConnect();
    expect(await dialBack(base, ctx.launcher.secret, ctx.daemon)).toBe(101);
    const results = (await Promise.all([first, second].map(async (r) => (await r).json()))) as Result[];
    expect(results.map((r) => r.stdout).sort()).toEqual(["one\n", "two\n"]);
    expect(ctx.launcher.specs).toHaveLength(1);
    expect(ctx.daemon.execs).toHaveLength(2);
  });

  it("refuses a dial-back without the daemon's secret (401)", async () => {
    const ctx = await setup();
    const url = `http://computer.test/v1/computers/${ctx.id}/_computerd`;
    expect(await dialBack(url, "wrong-secret-value", ctx.daemon)).toBe(401);
    const anonymous = await api(`/v1/computers/${ctx.id}/_computerd`, {
      token: null,
      headers: { Upgrade: "websocket" },
    });
    await expectError(anonymous, 401, "EUNAUTHORIZED");
    const admin = await api(`/v1/computers/${ctx.id}/_computerd`, { headers: { Upgrade: "websocket" } });
    await expectError(admin, 401, "EUNAUTHORIZED");
  });

  it("a failed fence leaves the sync pending; the alarm finishes it durably", async () => {
    const ctx = await setup();
    await writeFile(ctx.id, "a.txt", "payload");
    ctx.daemon.failFence = 1;
    const res = await execConnected(ctx, "upload /a.txt /late.txt\nout x");
    const result = (await res.json()) as Result;
    expect(result).toMatchObject({ status: "completed", sync: { status: "pending" } });
    await expectError(await api(`/v1/computers/${ctx.id}/files/late.txt`), 404, "ENOENT");
    const stub = env.COMPUTER.getByName(ctx.id);
    const due = await runInDurableObject(stub, (_, state) => state.storage.kv.get<number>("alarm:sync"));
    expect(due).toBeGreaterThan(Date.now());
    await runInDurableObject(stub, (_, state) => state.storage.kv.put("alarm:sync", 0));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = (await (await api(`/v1/computers/${ctx.id}/exec/${result.id}`)).json()) as Result;
    expect(after.sync.status).toBe("complete");
    expect(after.sync.rev).toBeGreaterThan(0);
    expect(await readText(ctx.id, "late.txt")).toBe("payload");
  });

  it("DELETE kills the command in the container", async () => {
    const ctx = await setup();
    const res = await execConnected(ctx, "out before\nhang", true);
    const execId = res.headers.get("x-exec-id");
    const frames = readFrames(res);
    const killed = await api(`/v1/computers/${ctx.id}/exec/${execId}`, { method: "DELETE" });
    expect(await killed.json()).toMatchObject({
      status: "killed",
      exitCode: 137,
      sync: { status: "complete" },
    });
    expect((await frames).map((f) => f.event)).toEqual(["stdout", "exit"]);
  });

  it("a link lost mid-command fails the exec with its sync pending", async () => {
    const ctx = await setup();
    const res = await execConnected(ctx, "out before\nhang", true);
    const frames = readFrames(res);
    await new Promise((r) => setTimeout(r, 100));
    ctx.daemon.socket?.close(1001, "gone");
    const exit = dataOf<Result>((await frames).at(-1));
    expect(exit).toMatchObject({ status: "failed", exitCode: null, sync: { status: "pending" } });
    expect(exit.error?.code).toBe("EIO");
  });

  it("an egress change relaunches computerd; deleting the computer destroys its container", async () => {
    const ctx = await setup();
    await (await execConnected(ctx, "out 1")).json();
    expect(ctx.launcher.specs.at(-1)?.egress).toBe("none");
    await apiJson("PUT", `/v1/computers/${ctx.id}`, { egress: "all" });
    const again = await execConnected(ctx, "out 2");
    expect(await again.json()).toMatchObject({ status: "completed", stdout: "2\n" });
    expect(ctx.launcher.specs.at(-1)?.egress).toBe("all");
    expect((await api(`/v1/computers/${ctx.id}`, { method: "DELETE" })).status).toBe(204);
    expect(ctx.launcher.destroyed).toEqual([ctx.id]);
  });
});
