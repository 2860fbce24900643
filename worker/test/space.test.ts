/**
 * The Durable Object gives space back: after 32 MiB are written through the API and deleted,
 * its SQLite storage is back within 10% of where it started once the GC has run past its
 * window (the alarm's vfs.gc, on a clock moved past the window), and what a file still uses
 * stays. Before the window has passed, the deleted data is still held (a stream or a fork may
 * still need it).
 */

import { env, runInDurableObject } from "cloudflare:test";
import { createHash } from "node:crypto";
import { durableObjectSql, GC_WINDOW_MS, openVfs } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { api, createComputer, readText, writeFile } from "./helpers.ts";

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

function noise(bytes: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 65536) crypto.getRandomValues(out.subarray(i, i + 65536));
  return out;
}

describe("space on the Durable Object", () => {
  it("comes back within 10% after 32 MiB are written and deleted, once GC has run", async () => {
    const id = await createComputer();
    await writeFile(id, "kept.txt", "kept");
    const start = await storage(id);
    const put = await api(`/v1/computers/${id}/files/big.bin`, { method: "PUT", body: noise(32 << 20) });
    expect(put.status).toBe(201);
    expect(await storage(id)).toBeGreaterThan(start + (32 << 20));
    expect((await api(`/v1/computers/${id}/files/big.bin`, { method: "DELETE" })).status).toBe(204);
    expect(await storage(id, 0)).toBeGreaterThan(start + (32 << 20));
    expect(await storage(id, GC_WINDOW_MS + 1)).toBeLessThanOrEqual(start * 1.1);
    expect(await readText(id, "kept.txt")).toBe("kept");
  }, 120_000);
});
