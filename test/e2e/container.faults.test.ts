/**
 * The container runtime when things break, through the real stack (local Worker + computerd
 * host + FUSE + bubblewrap), checked through the HTTP API: the Durable Object restarts
 * (the Worker's workerd stopped and started on the same state) between execs; computerd is killed
 * with SIGKILL during a write storm — every change of every exec that returned `complete` is
 * still in the DO, the storm's exec is `pending` (never silently complete) and is completed
 * once the relaunched daemon is fenced, and the container and the DO agree afterwards.
 */

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import type { ExecResult } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { daemonPid } from "./daemon-pid.ts";
import { createComputerOn, entryNames, expectSynced, runContainer } from "./fleet-computer.ts";

const containerCapable = canRun("the container runtime when things break", containerMissing());

let fleet: Fleet;

const writeFiles = (dir: string, n: number) =>
  `mkdir -p ${dir} && i=0; while [ $i -lt ${n} ]; do echo "${dir} $i" > ${dir}/f$i; i=$((i+1)); done`;

describe.skipIf(!containerCapable)("container runtime when things break", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("a Durable Object restart between execs loses nothing and the next exec runs", async () => {
    const api = await createComputerOn(fleet, "e2e-do-restart");
    expectSynced(await runContainer(api, "echo before > before.txt"));
    await fleet.restartWorker();
    const after = await runContainer(api, "cat before.txt && echo after > after.txt");
    expectSynced(after);
    expect(after.stdout).toBe("before\n");
    expect(await api.files.readText("after.txt")).toBe("after\n");
    expect(await api.files.readText("before.txt")).toBe("before\n");
  }, 300_000);

  it("SIGKILL of computerd in a write storm: completed execs stay complete, the storm's is pending then complete, both sides agree", async () => {
    const id = "e2e-kill";
    const api = await createComputerOn(fleet, id);
    for (let n = 0; n < 3; n++) expectSynced(await runContainer(api, writeFiles(`done${n}`, 200)));
    const pid = daemonPid(fleet, id);
    const storm = runContainer(api, writeFiles("storm", 20_000), 300_000);
    // Let the storm get well under way (files appearing in the container's mount), then crash
    // the daemon under it.
    const stormDir = join(fleet.hostDir ?? "", "mnt", id, "workspace", "storm");
    await vi.waitFor(
      () => expect(existsSync(stormDir) ? readdirSync(stormDir).length : 0).toBeGreaterThan(500),
      {
        timeout: 120_000,
        interval: 50,
      },
    );
    process.kill(pid, "SIGKILL");
    const stormResult: ExecResult = await storm;
    expect(stormResult.sync.status, JSON.stringify(stormResult)).not.toBe("complete");

    // The next exec relaunches computerd on the same state (the host clears the stale mount).
    const counted = await runContainer(api, "for d in done0 done1 done2; do ls $d | wc -l; done");
    expectSynced(counted);
    expect(counted.stdout).toBe("200\n200\n200\n");
    expect(daemonPid(fleet, id)).not.toBe(pid);
    for (let n = 0; n < 3; n++) {
      expect((await entryNames(api, `done${n}`)).size).toBe(200);
      expect(await api.files.readText(`done${n}/f199`)).toBe(`done${n} 199\n`);
    }
    // Never a silent drop: the storm's exec is completed by the DO's retry once computerd is back.
    await expect
      .poll(async () => (await api.exec.get(stormResult.id)).sync.status, { timeout: 60_000, interval: 1000 })
      .toBe("complete");
    // Whatever of the storm survived in the mirror is what the DO has.
    const inContainer = await runContainer(api, "ls storm | wc -l");
    expectSynced(inContainer);
    expect((await entryNames(api, "storm")).size).toBe(Number(inContainer.stdout.trim()));
  }, 600_000);
});
