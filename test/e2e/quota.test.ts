/**
 * The computer's quota in the container, end to end (local Worker + computerd host + FUSE +
 * bwrap): `df` shows the quota, a write past it fails in the command itself with "No space
 * left on device" while what fit syncs, rm frees the room and the next exec syncs. When the
 * Durable Object holds less room than the container thought (a file PUT through the API while
 * a command ran), the DO still refuses the upload: the exec says ENOSPC with its sync pending,
 * and once the container's file is removed the next exec syncs again.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import { type Computer, ComputerError, type ExecResult } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSynced, fleetClient, runContainer } from "./fleet-computer.ts";

const containerCapable = canRun("the quota in the container", containerMissing());

const MiB = 1024 * 1024;
const QUOTA = 4 * MiB;

/** `df` of the workspace in bytes: [size, used, available]. */
const DF = "df -B1 --output=size,used,avail /workspace | tail -n 1";

function dfNumbers(stdout: string): number[] {
  return stdout.trim().split(/\s+/).map(Number);
}

describe.skipIf(!containerCapable)("the quota in the container", () => {
  let fleet: Fleet | undefined;
  let api: Computer;

  const computer = () => api.info();
  /** The file's length, or 404 when there is none. */
  const length = async (path: string): Promise<number | 404> => {
    try {
      return (await api.files.read(path)).length;
    } catch (err) {
      if (err instanceof ComputerError && err.code === "ENOENT") return 404;
      throw err;
    }
  };

  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
    const client = fleetClient(fleet);
    expect((await client.computers.create("e2e-quota", { quotaBytes: QUOTA })).created).toBe(true);
    api = client.computer("e2e-quota");
  }, 300_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("df shows the quota; dd past it fails in the command; rm frees the room and the next exec syncs", async () => {
    const df = await runContainer(api, DF);
    expectSynced(df);
    expect(dfNumbers(df.stdout)).toEqual([QUOTA, 0, QUOTA]);

    const dd = await runContainer(
      api,
      `dd if=/dev/zero of=/workspace/big bs=64k count=100; echo "dd exit $?"; ${DF}`,
    );
    expect(dd.stderr).toContain("No space left on device");
    expect(dd.stdout).toContain("dd exit 1");
    // What fit (the quota exactly) is stored and synced; nothing is pending.
    expect(dd.sync.status, JSON.stringify(dd)).toBe("complete");
    expect(dfNumbers(dd.stdout.trim().split("\n").at(-1) ?? "")).toEqual([QUOTA, QUOTA, 0]);
    expect(await computer()).toMatchObject({ usedBytes: QUOTA, quotaBytes: QUOTA });
    expect(await length("big")).toBe(QUOTA);

    const rm = await runContainer(api, `rm /workspace/big && ${DF}`);
    expectSynced(rm);
    expect(dfNumbers(rm.stdout)).toEqual([QUOTA, 0, QUOTA]);
    expect(await length("big")).toBe(404);
    expect((await computer()).usedBytes).toBe(0);
  }, 300_000);

  it("a quota change reaches a running command: df follows PUT /v1/computers/:id", async () => {
    const set = async (quotaBytes: number) => {
      expect((await api.update({ quotaBytes })).quotaBytes).toBe(quotaBytes);
    };
    // The exec sends the old quota before the command; the PUT during the command sends the new.
    const running = execStreaming(api, `echo started; sleep 3; ${DF}`);
    await running.started;
    await set(8 * MiB);
    try {
      const df = await running.result;
      expectSynced(df);
      expect(dfNumbers(df.stdout.trim().split("\n").at(-1) ?? "")).toEqual([8 * MiB, 0, 8 * MiB]);
    } finally {
      await set(QUOTA);
    }
  }, 120_000);

  it("the DO refuses an upload its room no longer holds; the exec says ENOSPC; rm makes the next exec sync", async () => {
    // The command writes 3 MiB after the API took 2 MiB of the 4 behind its back: the DO pushes
    // only before a command, so the container still counts the room it saw at the start.
    const source = "echo started; sleep 5; head -c 3145728 /dev/zero > /workspace/late && echo wrote";
    const running = execStreaming(api, source);
    await running.started;
    await api.files.write("api.bin", "a".repeat(2 * MiB));
    const refused = await running.result;
    expect(refused).toMatchObject({ status: "completed", exitCode: 0, stdout: "started\nwrote\n" });
    expect(refused.sync.status, JSON.stringify(refused)).toBe("pending");
    expect(refused.error?.code).toBe("ENOSPC");
    expect(refused.error?.message).toContain("quota");
    // What streamed while the command ran may have fit (a prefix of the file); the whole never did.
    const late = await length("late");
    if (late !== 404) expect(late).toBeLessThan(3 * MiB);
    expect((await computer()).usedBytes).toBeLessThanOrEqual(QUOTA);

    const rm = await runContainer(api, `ls -a /workspace && rm /workspace/late && ${DF}`);
    expectSynced(rm);
    expect(rm.error).toBeUndefined();
    expect(rm.stdout).toContain("api.bin");
    expect(dfNumbers(rm.stdout.trim().split("\n").at(-1) ?? "")).toEqual([QUOTA, 2 * MiB, 2 * MiB]);
    expect((await computer()).usedBytes).toBe(2 * MiB);
    expect(await length("late")).toBe(404);
  }, 300_000);
});

/** Starts a container exec as a stream: `started` once the first output arrived, then the result. */
function execStreaming(
  api: Computer,
  source: string,
): { started: Promise<void>; result: Promise<ExecResult> } {
  let onStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    onStarted = resolve;
  });
  const result = (async () => {
    const stream = await api.exec.stream({ runtime: "container", source, timeoutMs: 120_000 });
    return stream.result((event) => {
      if (event.type === "stdout") onStarted();
    });
  })();
  return { started, result };
}
