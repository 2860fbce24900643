/**
 * Helpers the runtime suites share: an admin-authenticated fetch of a fleet's API paths
 * (the ContractFetch of worker/test/exec-contract.ts) and computer creation. Whether this
 * machine can run the container runtime is @computer/fleet/capabilities.
 */
import type { Fleet } from "@computer/fleet";
import type { ContractFetch } from "@computer/worker/exec-contract";
import { expect } from "vitest";

/** Fetches `path` (`/v1/...`) on `fleet` with the admin token. */
export function fleetFetch(fleet: Fleet): ContractFetch {
  return (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${fleet.adminToken}`);
    return fetch(`${fleet.url}${path}`, { ...init, headers });
  };
}

/** Creates computer `id` (with `body` as its settings). */
export async function createComputer(
  api: ContractFetch,
  id: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await api(`/v1/computers/${id}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  await res.body?.cancel();
  return id;
}
