/**
 * The container e2e suites' view of a fleet, through @computer/sdk: the admin client, a fresh
 * computer, a container exec (buffered, or as events stamped with their arrival time), the
 * names of a directory, and the fence events computerd host printed.
 */

import type { Fleet } from "@computer/fleet";
import { type Computer, ComputerClient, type ExecEvent, type ExecResult } from "@computer/sdk";
import { expect } from "vitest";

/** One exec event and when it arrived (performance.now()). */
export type Arrival = ExecEvent & { at: number };

/** The SDK client of `fleet` with its admin token. */
export function fleetClient(fleet: Fleet): ComputerClient {
  return new ComputerClient({ url: fleet.url, token: fleet.adminToken });
}

/** Creates computer `id` on `fleet` (it must be new). */
export async function createComputerOn(fleet: Fleet, id: string): Promise<Computer> {
  const client = fleetClient(fleet);
  expect((await client.computers.create(id)).created).toBe(true);
  return client.computer(id);
}

/** Runs `source` in the container runtime and returns the finished result. */
export function runContainer(computer: Computer, source: string, timeoutMs = 120_000): Promise<ExecResult> {
  return computer.exec.run({ runtime: "container", source, timeoutMs });
}

/** Runs `source` in the container runtime as a stream; every event with its arrival time. */
export async function containerArrivals(
  computer: Computer,
  source: string,
  timeoutMs = 120_000,
): Promise<Arrival[]> {
  const stream = await computer.exec.stream({ runtime: "container", source, timeoutMs });
  const arrivals: Arrival[] = [];
  for await (const event of stream) arrivals.push({ ...event, at: performance.now() });
  return arrivals;
}

/** Every entry name of a directory (all pages). */
export async function entryNames(computer: Computer, path: string): Promise<Set<string>> {
  const names = new Set<string>();
  for await (const entry of computer.files.entries(path, { pageSize: 10_000 })) names.add(entry.name);
  return names;
}

/** Fails with everything the result says unless it completed with exit code 0 and synced. */
export function expectSynced(result: ExecResult): void {
  expect(
    { status: result.status, exitCode: result.exitCode, sync: result.sync.status },
    JSON.stringify(result),
  ).toEqual({ status: "completed", exitCode: 0, sync: "complete" });
}

/** The `[id] {"event":"fence",...}` lines computerd host printed for computer `id`. */
export function fenceEvents(
  fleet: Fleet,
  id: string,
): { ms: number; flushMs: number; batches: number; changes: number }[] {
  const events = [];
  for (const line of fleet.hostOutput().split("\n")) {
    const prefix = `[${id}] `;
    const at = line.indexOf(prefix);
    if (at < 0) continue;
    try {
      const event = JSON.parse(line.slice(at + prefix.length)) as { event?: string };
      if (event.event === "fence")
        events.push(event as { ms: number; flushMs: number; batches: number; changes: number });
    } catch {
      // Not an event line.
    }
  }
  return events;
}
