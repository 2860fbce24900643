/**
 * Which Dynamic Worker isolate a computer's shell execs run in (shell-runtime.ts,
 * shell-spares.ts): the shell guest reports how many scripts its isolate has run
 * (`guestIsolateRuns`), so a first exec that says anything but 1 ran in an isolate another
 * computer (or an earlier computer of the same name) used.
 */
import { describe, expect, it } from "vitest";
import { api, createComputer } from "./helpers.ts";
import { runOk } from "./runtime-helpers.ts";

/** Long enough for the isolate to go idle and warm a spare (not a timing assertion). */
const IDLE_MS = 300;

async function runs(id: string): Promise<{ runs: number | undefined; spare: number }> {
  const { metrics } = await runOk(id, "shell", "true");
  return { runs: metrics.guestIsolateRuns, spare: metrics.shellSpare ?? 0 };
}

describe("shell runtime: each computer's own isolate", () => {
  it("a computer's first shell exec runs in an isolate that ran nothing before, a spare or its own; it keeps it", async () => {
    const first = await createComputer();
    expect(await runs(first)).toMatchObject({ runs: 1 });
    expect(await runs(first)).toMatchObject({ runs: 2, spare: 0 });
    let taken = 0;
    for (let i = 0; i < 8 && taken < 2; i++) {
      await scheduler.wait(IDLE_MS);
      const id = await createComputer();
      const firstRun = await runs(id);
      expect(firstRun.runs, `computer ${i}'s first exec`).toBe(1);
      taken += firstRun.spare;
      expect(await runs(id)).toMatchObject({ runs: 2, spare: 0 });
    }
    // The spare path really ran (a spare warmed while idle, handed to a new computer).
    expect(taken).toBe(2);
    expect(await runs(first)).toMatchObject({ runs: 3, spare: 0 });
  });

  it("a computer deleted and created again under the same name starts in a fresh isolate", async () => {
    const id = await createComputer();
    expect(await runs(id)).toMatchObject({ runs: 1 });
    expect(await runs(id)).toMatchObject({ runs: 2 });
    expect((await api(`/v1/computers/${id}`, { method: "DELETE" })).status).toBe(204);
    await createComputer({}, id);
    expect(await runs(id)).toMatchObject({ runs: 1 });
  });
});
