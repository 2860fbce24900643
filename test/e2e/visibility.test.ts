/**
 * A file written by any runtime or the files API is visible to every other one right after
 * the write returns, on the real local fleet: one test per writer/reader pair among the
 * container (real computerd, where this machine can run it), shell, js and the API.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import type { ContractFetch } from "@computer/worker/exec-contract";
import { checkPair, pairs, type Side } from "@computer/worker/visibility";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

const containerCapable = canRun("visibility's container side", containerMissing());

let fleet: Fleet;
let api: ContractFetch;
const ID = "e2e-visibility";
const SIDES: Side[] = containerCapable ? ["container", "shell", "js", "api"] : ["shell", "js", "api"];

describe("cross-runtime visibility on the local fleet", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: containerCapable });
    api = fleetFetch(fleet);
    await createComputer(api, ID);
    if (containerCapable) {
      const res = await api(`/v1/computers/${ID}/exec`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ runtime: "container", source: "true", timeoutMs: 120_000 }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe("completed");
    }
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  for (const [writer, reader] of pairs(SIDES)) {
    it(`${writer} writes, ${reader} reads right after`, async () => {
      await checkPair(api, ID, writer, reader);
    });
  }
});
