/** The hourly GC alarm: scheduled by the first write, rescheduled by each run, stopped by delete. */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { GC_INTERVAL_MS } from "../src/computer/context.ts";
import { api, createComputer, readText, writeFile } from "./helpers.ts";

async function alarmOf(id: string): Promise<number | null> {
  return runInDurableObject(env.COMPUTER.getByName(id), (_, state) => state.storage.getAlarm());
}

describe("gc alarm", () => {
  it("is scheduled about an hour ahead and keeps the computer intact when it runs", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "a");
    const at = await alarmOf(id);
    expect(at).not.toBeNull();
    expect(at ?? 0).toBeGreaterThan(Date.now() + GC_INTERVAL_MS - 60_000);
    expect(await runDurableObjectAlarm(env.COMPUTER.getByName(id))).toBe(true);
    expect(await alarmOf(id)).not.toBeNull();
    expect(await readText(id, "a.txt")).toBe("a");
  });

  it("stops when the computer is deleted", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "a");
    await api(`/v1/computers/${id}`, { method: "DELETE" });
    expect(await alarmOf(id)).toBeNull();
  });
});
