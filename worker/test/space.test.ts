/**
 * The Durable Object gives space back: after a large file is written through the API and
 * deleted, its SQLite storage is back within 10% of where it started once the GC has run past
 * its window (the alarm's vfs.gc, on a clock moved past the window), and what a file still uses
 * stays. Before the window has passed, the deleted data is still held (a stream or a fork may
 * still need it). 32 MiB in `make test`; `npm run bench:space` runs it with 1 GiB
 * (SPACE_TEST_MIB, bound by worker/vitest.config.ts) and reads the sizes from its
 * `space-do:` line.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { createHash } from "node:crypto";
import { durableObjectSql, GC_WINDOW_MS, openVfs } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { api, createComputer, readText, writeFile } from "./helpers.ts";

const MiB = 1 << 20;
const SIZE_MIB = Number((env as { SPACE_TEST_MIB?: string }).SPACE_TEST_MIB ?? "32");

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** The DO's database size, and a GC run on a clock `aheadMs` past now. */
function storage(id: string, aheadMs?: number): Promise<number> {
  return runInDurableObject(env.COMPUTER.getByName(id), (_instance, state) => {
    if (aheadMs !== undefined) {
      const vfs = openVfs(durableObjectSql(state.storage), { sha256, now: () => Date.now() + aheadMs });
      vfs.gc();
    }
    return state.storage.sql.databaseSize;
  });
}

/** `mib` MiB of random bytes as a stream, 1 MiB at a time (never the whole file in memory). */
function noise(mib: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === mib) return controller.close();
      const chunk = new Uint8Array(MiB);
      for (let i = 0; i < MiB; i += 65536) crypto.getRandomValues(chunk.subarray(i, i + 65536));
      controller.enqueue(chunk);
      sent++;
    },
  });
}

describe("space on the Durable Object", () => {
  it(`comes back within 10% after ${SIZE_MIB} MiB are written and deleted, once GC has run`, async () => {
    const id = await createComputer({ quotaBytes: (SIZE_MIB + 64) * MiB });
    await writeFile(id, "kept.txt", "kept");
    const start = await storage(id);
    const writeStarted = Date.now();
    const put = await api(`/v1/computers/${id}/files/big.bin`, { method: "PUT", body: noise(SIZE_MIB) });
    expect(put.status, await put.text()).toBe(201);
    const writeMs = Date.now() - writeStarted;
    const peak = await storage(id);
    expect(peak).toBeGreaterThan(start + SIZE_MIB * MiB);
    expect((await api(`/v1/computers/${id}/files/big.bin`, { method: "DELETE" })).status).toBe(204);
    const withinWindow = await storage(id, 0);
    expect(withinWindow).toBeGreaterThan(start + SIZE_MIB * MiB);
    const gcStarted = Date.now();
    const end = await storage(id, GC_WINDOW_MS + 1);
    const gcMs = Date.now() - gcStarted;
    console.log(
      `space-do: ${JSON.stringify({ mib: SIZE_MIB, start, peak, withinWindow, end, writeMs, gcMs })}`,
    );
    expect(end).toBeLessThanOrEqual(start * 1.1);
    expect(await readText(id, "kept.txt")).toBe("kept");
  }, 600_000);
});
