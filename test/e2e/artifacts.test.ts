/**
 * Artifacts on the real local fleet (the local Worker, Miniflare's R2 on disk): publish a directory
 * over HTTP, open the signed link with no token, refuse a tampered one, and find the artifact
 * and its link still there after the Worker restarts.
 */
import { createHash } from "node:crypto";
import { type Fleet, startFleet } from "@computer/fleet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet();
});

afterAll(async () => {
  await fleet?.stop();
});

function auth(): Record<string, string> {
  return { Authorization: `Bearer ${fleet.adminToken}` };
}

async function put(id: string, path: string, body: string | Uint8Array<ArrayBuffer>): Promise<void> {
  const res = await fetch(`${fleet.url}/v1/computers/${id}/files/${path}`, {
    method: "PUT",
    headers: auth(),
    body,
  });
  expect(res.status).toBe(201);
}

describe("artifacts on the local fleet", () => {
  it("publishes a directory and serves it through the signed link, also after a restart", async () => {
    const id = "artifacts-e2e";
    expect((await fetch(`${fleet.url}/v1/computers/${id}`, { method: "PUT", headers: auth() })).status).toBe(
      201,
    );
    const big = new Uint8Array(2 * 1024 * 1024 + 3).map((_, i) => i % 256);
    await put(id, "dist/index.html", "<h1>e2e</h1>");
    await put(id, "dist/assets/app.js", "console.log('e2e');");
    await put(id, "dist/data.bin", big);
    const res = await fetch(`${fleet.url}/v1/computers/${id}/artifacts`, {
      method: "POST",
      headers: { ...auth(), "Content-Type": "application/json" },
      body: JSON.stringify({ path: "dist", name: "e2e-site" }),
    });
    expect(res.status).toBe(201);
    const published = (await res.json()) as {
      url: string;
      version: string;
      files: { path: string; sha256: string }[];
    };
    expect(published.version).toBe("1");
    expect(published.url.startsWith(`${fleet.url}/a/e2e-site/1/`)).toBe(true);
    const sha = createHash("sha256").update(big).digest("hex");
    expect(published.files.find((f) => f.path === "data.bin")?.sha256).toBe(sha);

    const page = await fetch(published.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("<h1>e2e</h1>");
    const script = await fetch(`${published.url}assets/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const data = new Uint8Array(await (await fetch(`${published.url}data.bin`)).arrayBuffer());
    expect(createHash("sha256").update(data).digest("hex")).toBe(sha);
    const tampered = published.url.replace(
      /\/a\/e2e-site\/1\/(\d+)\./,
      (_, exp: string) => `/a/e2e-site/1/${Number(exp) + 1}.`,
    );
    expect((await fetch(tampered)).status).toBe(403);

    await fleet.restartWorker();
    expect(await (await fetch(published.url)).text()).toBe("<h1>e2e</h1>");
    const listed = await fetch(`${fleet.url}/v1/artifacts/e2e-site`, { headers: auth() });
    expect(
      ((await listed.json()) as { versions: { version: string }[] }).versions.map((v) => v.version),
    ).toEqual(["1"]);
  });
});
