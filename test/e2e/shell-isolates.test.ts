/**
 * Spare shell isolates on the real local fleet (worker/src/guest-hosting/shell-spares.ts): a
 * new computer's first shell exec may run in a spare loaded ahead, but never in an isolate
 * another computer used. The shell guest reports how many scripts its isolate has run
 * (`guestIsolateRuns` in X-Exec-Metrics), so a spare handed out twice, or a computer given
 * another's isolate, shows as a first exec that says more than 1.
 */
import { type Fleet, startFleet } from "@computer/fleet";
import type { ContractFetch } from "@computer/worker/exec-contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

let fleet: Fleet;
let api: ContractFetch;

/** Long enough for the fleet to go idle and warm a spare (not a timing assertion). */
const IDLE_MS = 500;

function metric(header: string | null, name: string): number | undefined {
  const pair = (header ?? "").split(",").find((p) => p.trim().startsWith(`${name}=`));
  return pair === undefined ? undefined : Number(pair.split("=")[1]);
}

/** Runs `true` in the shell of `id`: the isolate's run count and whether it was a spare just taken. */
async function shellTrue(id: string): Promise<{ runs: number | undefined; spare: number }> {
  const res = await api(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "shell", source: "true" }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(JSON.parse(text)).toMatchObject({ status: "completed", exitCode: 0 });
  const metrics = res.headers.get("x-exec-metrics");
  return { runs: metric(metrics, "guestIsolateRuns"), spare: metric(metrics, "shellSpare") ?? 0 };
}

describe("spare shell isolates (real fleet)", () => {
  beforeAll(async () => {
    fleet = await startFleet();
    api = fleetFetch(fleet);
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("two computers' first shell execs never share an isolate; each keeps its own", async () => {
    const first = await createComputer(api, "e2e-spare-first");
    expect(await shellTrue(first)).toMatchObject({ runs: 1 });
    expect(await shellTrue(first)).toMatchObject({ runs: 2, spare: 0 });
    const computers: string[] = [];
    let taken = 0;
    for (let i = 0; i < 8 && taken < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const id = await createComputer(api, `e2e-spare-${i}`);
      computers.push(id);
      const firstRun = await shellTrue(id);
      expect(firstRun.runs, `${id}'s first exec`).toBe(1);
      taken += firstRun.spare;
    }
    // The spare path really ran: spares warmed while the fleet was idle went to new computers.
    expect(taken).toBe(2);
    for (const id of computers) expect(await shellTrue(id)).toMatchObject({ runs: 2, spare: 0 });
    expect(await shellTrue(first)).toMatchObject({ runs: 3, spare: 0 });
  });

  it("a computer deleted and created again under the same name starts in a fresh isolate", async () => {
    const id = await createComputer(api, "e2e-spare-again");
    expect(await shellTrue(id)).toMatchObject({ runs: 1 });
    expect(await shellTrue(id)).toMatchObject({ runs: 2 });
    expect((await api(`/v1/computers/${id}`, { method: "DELETE" })).status).toBe(204);
    await createComputer(api, id);
    expect(await shellTrue(id)).toMatchObject({ runs: 1 });
  });
});
