/** The mount's counters of a timed part: the difference of two snapshots. */
import { describe, expect, it } from "vitest";
import { counterDelta, type MountCounters } from "./target.ts";

const sql = (statements: number) => ({ statements, operations: statements / 2, commits: 1 });

describe("counterDelta", () => {
  it("subtracts every counter, leaves zero FUSE counts out and keeps the daemon's CPU time", () => {
    const before: MountCounters = {
      fuse: { lookup: 3, create: 1 },
      sql: sql(10),
      storedBytes: 100,
      cpuMs: 50,
    };
    const after: MountCounters = {
      fuse: { lookup: 3, create: 4, write: 2 },
      sql: sql(30),
      storedBytes: 900,
      cpuMs: 80.5,
    };
    expect(counterDelta(before, after)).toEqual({
      fuse: { create: 3, write: 2 },
      sql: { statements: 20, operations: 10, commits: 0 },
      storedBytes: 800,
      cpuMs: 30.5,
    });
  });

  it("has no CPU time when a snapshot lacks it (computerd mount's own counters)", () => {
    const delta = counterDelta({ fuse: {}, sql: sql(0) }, { fuse: {}, sql: sql(2), cpuMs: 5 });
    expect(delta.cpuMs).toBeUndefined();
  });
});
