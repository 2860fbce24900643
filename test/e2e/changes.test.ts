/**
 * The change feed on the real local fleet: writes by the container (real computerd, where this
 * machine can run it), shell, js and the API arrive live and in order, and resuming from any
 * change's cursor loses and repeats nothing (worker/test/change-feed.ts).
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import { checkFeed } from "@computer/worker/change-feed";
import type { ContractFetch } from "@computer/worker/exec-contract";
import type { Side } from "@computer/worker/visibility";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

const containerCapable = canRun("the change feed's container side", containerMissing());

let fleet: Fleet;
let api: ContractFetch;
const ID = "e2e-changes";
const SIDES: Side[] = containerCapable ? ["container", "shell", "js", "api"] : ["shell", "js", "api"];

describe("change feed on the local fleet", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: containerCapable });
    api = fleetFetch(fleet);
    await createComputer(api, ID);
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it(`shows writes of ${SIDES.join(", ")} live, in order, and resumes exactly`, async () => {
    await checkFeed(api, ID, SIDES, "feed");
  }, 240_000);
});
