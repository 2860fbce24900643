/**
 * The exec contract (worker/test/exec-contract.ts) against the real local fleet: shell and js
 * under the local Worker (Dynamic Workers through the real Worker Loader), and the container
 * runtime on real `computerd host` + FUSE + bubblewrap where this machine can run it.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import {
  CONTRACT_CASES,
  ContractClient,
  type ContractFetch,
  type ContractRuntime,
} from "@computer/worker/exec-contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

const containerCapable = canRun("the exec contract's container runtime", containerMissing());

let fleet: Fleet;
let api: ContractFetch;
const computers = new Map<ContractRuntime, string>();

describe("exec contract on the local fleet", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: containerCapable });
    api = fleetFetch(fleet);
    for (const runtime of ["container", "shell", "js"] as const) {
      if (runtime === "container" && !containerCapable) continue;
      const id = await createComputer(api, `e2e-contract-${runtime}`);
      computers.set(runtime, id);
      // Warm up: the container's first exec launches computerd and dials back.
      const warm = await new ContractClient(api, id, runtime).run({
        source: runtime === "js" ? "export default () => 1" : "true",
        timeoutMs: 120_000,
      });
      expect(warm.status).toBe("completed");
    }
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  for (const runtime of ["container", "shell", "js"] as const) {
    describe.skipIf(runtime === "container" && !containerCapable)(runtime, () => {
      for (const contractCase of CONTRACT_CASES) {
        it(contractCase.name, async () => {
          const id = computers.get(runtime);
          if (id === undefined) throw new Error(`no computer for ${runtime}`);
          await contractCase.run(new ContractClient(api, id, runtime), true);
        });
      }
    });
  }
});
