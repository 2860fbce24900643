/**
 * Large files end to end on the real fleet (local Worker + computerd host): a streamed API PUT
 * round-trips byte for byte, the container reads exactly those bytes, and what a command writes
 * (a new large file, then a few bytes patched into its middle) is in the Durable Object byte
 * for byte once the exec says `complete`. Times are bench:transfer's, never asserted here.
 */
import { createHash, randomBytes } from "node:crypto";
import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import type { Computer } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputerOn, runContainer } from "./fleet-computer.ts";

const MiB = 1024 * 1024;
const capable = canRun("large transfers through the container runtime", containerMissing());
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** `data` as a request body stream in odd-sized pieces (not chunk-aligned). */
function streamOf(data: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= data.length) return controller.close();
      controller.enqueue(data.subarray(offset, offset + piece));
      offset += piece;
    },
  });
}

async function getBytes(fleet: Fleet, id: string, path: string): Promise<Uint8Array> {
  const res = await fetch(`${fleet.url}/v1/computers/${id}/files/${path}`, {
    headers: { Authorization: `Bearer ${fleet.adminToken}` },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe.skipIf(!capable)("large transfers (local Worker + computerd host)", () => {
  const id = "e2e-transfer";
  let fleet: Fleet;
  let computer: Computer;

  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
    computer = await createComputerOn(fleet, id);
  }, 300_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("a streamed 40 MiB PUT reads back byte for byte, through the API and in the container", async () => {
    const data = randomBytes(40 * MiB + 12_345);
    const put = await fetch(`${fleet.url}/v1/computers/${id}/files/in/big.bin`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${fleet.adminToken}` },
      body: streamOf(data, 65_537),
      duplex: "half",
    } as RequestInit);
    expect(put.status).toBe(201);
    expect(await put.json()).toMatchObject({ size: data.length });
    expect(sha256(await getBytes(fleet, id, "in/big.bin"))).toBe(sha256(data));
    const read = await runContainer(computer, "sha256sum in/big.bin && stat -c %s in/big.bin");
    expect(read).toMatchObject({ status: "completed", exitCode: 0 });
    expect(read.stdout).toBe(`${sha256(data)}  in/big.bin\n${data.length}\n`);
  }, 300_000);

  it("a large file a command writes, then patches in the middle, is in the DO byte for byte", async () => {
    const written = await runContainer(
      computer,
      "head -c 24M /dev/urandom > out.bin && sha256sum out.bin",
      300_000,
    );
    expect(written).toMatchObject({ status: "completed", exitCode: 0, sync: { status: "complete" } });
    expect(sha256(await getBytes(fleet, id, "out.bin"))).toBe(written.stdout.split(" ")[0]);
    const patched = await runContainer(
      computer,
      "printf patched | dd of=out.bin bs=1 seek=1572860 conv=notrunc 2>/dev/null && sha256sum out.bin",
    );
    expect(patched).toMatchObject({ status: "completed", exitCode: 0, sync: { status: "complete" } });
    const inDo = await getBytes(fleet, id, "out.bin");
    expect(inDo.length).toBe(24 * MiB);
    expect(new TextDecoder().decode(inDo.subarray(1_572_860, 1_572_867))).toBe("patched");
    expect(sha256(inDo)).toBe(patched.stdout.split(" ")[0]);
  }, 300_000);
});
