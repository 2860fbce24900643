/**
 * computerd's blob upload (`POST .../_computerd/blobs`, worker/src/container/blob-upload.ts)
 * through the Worker into the DO: stored blobs are checked against their hashes, and only a
 * request with the launched daemon's secret is served.
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { createHash } from "node:crypto";
import { durableObjectSql, openVfs } from "@computer/vfs";
import { type BlobData, blobStreamBytes, blobStreamParts } from "@computer/vfs/sync";
import { describe, expect, it } from "vitest";
import { dialBack, FakeDaemonState } from "./fake-daemon.ts";
import { api, createComputer, expectError } from "./helpers.ts";
import { LinkTestLauncher } from "./link-test-launcher.ts";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

function blob(size: number, fill: number): BlobData {
  const data = new Uint8Array(size).fill(fill);
  return { hash: sha256(data), data };
}

/** The body computerd sends for `blobs` (its pieces joined: small blobs packed, chunks as they are). */
function body(blobs: readonly BlobData[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(blobStreamBytes(blobs));
  let at = 0;
  for (const part of blobStreamParts(blobs)) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A computer whose computerd (a fake) has been launched and dialed back: its upload URL and secret. */
async function launched(): Promise<{ id: string; url: string; secret: string }> {
  const id = await createComputer();
  const launcher = new LinkTestLauncher();
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useLauncher(launcher);
  });
  const pending = api(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source: "out x" }),
  });
  const { base } = await launcher.nextConnect();
  expect(await dialBack(base, launcher.secret, new FakeDaemonState())).toBe(101);
  await (await pending).json();
  return { id, url: `${base}/blobs`, secret: launcher.secret };
}

function post(
  url: string,
  secret: string,
  bytes: Uint8Array<ArrayBuffer>,
  method = "POST",
): Promise<Response> {
  return SELF.fetch(url, { method, headers: { Authorization: `Bearer ${secret}` }, body: bytes });
}

/** The hashes among `hashes` the DO holds no blob for. */
function missing(id: string, hashes: string[]): Promise<string[]> {
  return runInDurableObject(env.COMPUTER.getByName(id), (_instance, state) =>
    openVfs(durableObjectSql(state.storage), { sha256 }).missingBlobs(hashes),
  );
}

describe("computerd's blob upload", () => {
  it("stores every blob of the body, whole chunks included", async () => {
    const { id, url, secret } = await launched();
    const blobs = [blob(1 << 20, 1), blob(1 << 20, 2), blob(5, 3), blob(0, 4), blob(70_000, 5)];
    const res = await post(url, secret, body(blobs));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ blobs: 5, bytes: 2 * (1 << 20) + 70_005 });
    expect(
      await missing(
        id,
        blobs.map((b) => b.hash),
      ),
    ).toEqual([]);
  });

  it("refuses a blob that does not match its hash, and stores nothing of its group", async () => {
    const { id, url, secret } = await launched();
    const good = blob(100, 7);
    const bad = { hash: blob(100, 8).hash, data: new Uint8Array(100).fill(9) };
    await expectError(await post(url, secret, body([good, bad])), 400, "EINVAL");
    expect(await missing(id, [good.hash, bad.hash])).toEqual([good.hash, bad.hash]);
  });

  it("stores thousands of small blobs of one body", async () => {
    const { id, url, secret } = await launched();
    const blobs = Array.from({ length: 3000 }, (_, i) => blob(200 + (i % 7), i % 251));
    const unique = [...new Map(blobs.map((b) => [b.hash, b])).values()];
    const res = await post(url, secret, body(unique));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ blobs: unique.length });
    expect(
      await missing(
        id,
        unique.map((b) => b.hash),
      ),
    ).toEqual([]);
  });

  it("refuses a body that ends inside a blob", async () => {
    const { url, secret } = await launched();
    const bytes = body([blob(100, 1)]);
    await expectError(await post(url, secret, bytes.subarray(0, bytes.length - 1)), 400, "EINVAL");
  });

  it("only serves POST with the daemon's secret", async () => {
    const { id, url, secret } = await launched();
    const one = blob(10, 1);
    await expectError(await post(url, "wrong-secret-value", body([one])), 401, "EUNAUTHORIZED");
    const admin = await api(`/v1/computers/${id}/_computerd/blobs`, { method: "POST", body: body([one]) });
    await expectError(admin, 401, "EUNAUTHORIZED");
    await expectError(await post(url, secret, body([]), "PUT"), 405, "ENOTSUP");
    expect(await missing(id, [one.hash])).toEqual([one.hash]);
  });

  it("answers 401 for a computer that launched no computerd", async () => {
    const id = await createComputer();
    const res = await post(
      `http://computer.test/v1/computers/${id}/_computerd/blobs`,
      "any-secret",
      body([]),
    );
    await expectError(res, 401, "EUNAUTHORIZED");
  });
});
