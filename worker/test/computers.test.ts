/** PUT/GET/DELETE /v1/computers/:id, the admin listing, and computer id validation. */
import { describe, expect, it } from "vitest";
import {
  api,
  apiJson,
  createComputer,
  expectError,
  freshId,
  readText,
  snapshot,
  writeFile,
} from "./helpers.ts";

interface ComputerBody {
  id: string;
  createdAt: string;
  quotaBytes: number;
  usedBytes: number;
  egress: unknown;
}

describe("computers", () => {
  it("creates with 201, then answers 200 for an existing one", async () => {
    const id = freshId();
    const created = await apiJson("PUT", `/v1/computers/${id}`, {});
    expect(created.status).toBe(201);
    const body = (await created.json()) as ComputerBody;
    expect(body).toEqual({
      id,
      createdAt: expect.any(String),
      quotaBytes: 1024 ** 3,
      usedBytes: expect.any(Number),
      egress: "none",
    });
    expect(Date.parse(body.createdAt)).not.toBeNaN();
    const again = await apiJson("PUT", `/v1/computers/${id}`, {});
    expect(again.status).toBe(200);
    expect(((await again.json()) as ComputerBody).createdAt).toBe(body.createdAt);
  });

  it("accepts an empty body", async () => {
    const id = freshId();
    const res = await api(`/v1/computers/${id}`, { method: "PUT" });
    expect(res.status).toBe(201);
  });

  it("sets and updates quota and egress", async () => {
    const id = freshId();
    const res = await apiJson("PUT", `/v1/computers/${id}`, {
      quotaBytes: 5000,
      egress: { allow: ["example.com", "*.npmjs.org"] },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      quotaBytes: 5000,
      egress: { allow: ["example.com", "*.npmjs.org"] },
    });
    const updated = await apiJson("PUT", `/v1/computers/${id}`, { quotaBytes: 9000 });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({
      quotaBytes: 9000,
      egress: { allow: ["example.com", "*.npmjs.org"] },
    });
    const all = await apiJson("PUT", `/v1/computers/${id}`, { egress: "all" });
    expect(await all.json()).toMatchObject({ quotaBytes: 9000, egress: "all" });
  });

  it("reports used bytes", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "x".repeat(1000));
    const res = await api(`/v1/computers/${id}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as ComputerBody).usedBytes).toBeGreaterThanOrEqual(1000);
  });

  it.each([
    ["egress string", { egress: "some" }],
    ["egress allow not array", { egress: { allow: "example.com" } }],
    ["egress bad host", { egress: { allow: ["http://example.com"] } }],
    ["egress host with space", { egress: { allow: ["exa mple.com"] } }],
    ["negative quota", { quotaBytes: -1 }],
    ["fractional quota", { quotaBytes: 1.5 }],
    ["string quota", { quotaBytes: "100" }],
    ["quota over 10 GiB", { quotaBytes: 11 * 1024 ** 3 }],
  ])("rejects %s with 400 and changes nothing", async (_, body) => {
    const id = freshId();
    await expectError(await apiJson("PUT", `/v1/computers/${id}`, body), 400, "EINVAL");
    await expectError(await api(`/v1/computers/${id}`), 404, "ENOENT");
    const existing = await createComputer({ quotaBytes: 4096 });
    const before = await api(`/v1/computers/${existing}`).then((r) => r.json());
    await expectError(await apiJson("PUT", `/v1/computers/${existing}`, body), 400, "EINVAL");
    expect(await api(`/v1/computers/${existing}`).then((r) => r.json())).toEqual(before);
  });

  it.each(["{", "[1,2]", "null", '"x"', '{"quotaBytes": 1,}'])("rejects malformed JSON %s", async (text) => {
    const id = freshId();
    await expectError(await apiJson("PUT", `/v1/computers/${id}`, text), 400, "EINVAL");
    await expectError(await api(`/v1/computers/${id}`), 404, "ENOENT");
  });

  it("404s an unknown computer", async () => {
    const body = await expectError(await api(`/v1/computers/${freshId()}`), 404, "ENOENT");
    expect(body.error.message).toContain("no such computer");
    await expectError(await api(`/v1/computers/${freshId()}/files/a.txt`), 404, "ENOENT");
  });

  it("deletes all data with 204; a re-created computer is empty", async () => {
    const id = await createComputer();
    await writeFile(id, "dir/a.txt", "hello");
    await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "cp1" });
    const del = await api(`/v1/computers/${id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    await expectError(await api(`/v1/computers/${id}`), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}/files/dir/a.txt`), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}`, { method: "DELETE" }), 404, "ENOENT");
    await createComputer({}, id);
    expect(await snapshot(id)).toEqual({ "#usedBytes": "0" });
    const cps = await api(`/v1/computers/${id}/checkpoints`).then((r) => r.json());
    expect(cps).toEqual({ checkpoints: [] });
  });

  it("lists computers for the admin", async () => {
    const a = await createComputer();
    const b = await createComputer();
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const res = await api(`/v1/computers?limit=2${after === undefined ? "" : `&after=${after}`}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { computers: ComputerBody[]; next?: string };
      expect(page.computers.length).toBeLessThanOrEqual(2);
      for (const c of page.computers) {
        expect(c).toMatchObject({
          id: expect.any(String),
          quotaBytes: expect.any(Number),
          usedBytes: expect.any(Number),
        });
        seen.push(c.id);
      }
      after = page.next;
    } while (after !== undefined);
    expect(seen).toContain(a);
    expect(seen).toContain(b);
    await api(`/v1/computers/${a}`, { method: "DELETE" });
    const after2 = (await api("/v1/computers?limit=100").then((r) => r.json())) as {
      computers: ComputerBody[];
    };
    expect(after2.computers.map((c) => c.id)).not.toContain(a);
    expect(after2.computers.map((c) => c.id)).toContain(b);
  });

  it("keeps a computer's files across requests", async () => {
    const id = await createComputer();
    await writeFile(id, "keep.txt", "kept");
    expect(await readText(id, "keep.txt")).toBe("kept");
  });

  it.each(["UPPER", "-lead", "a_b", "a.b", "x".repeat(64), "caf%C3%A9", "a%2fb", "%2e%2e%2fb"])(
    "rejects the id %s with 400 EINVAL",
    async (bad) => {
      const listBefore = await api("/v1/computers?limit=100").then((r) => r.json());
      await expectError(await apiJson("PUT", `/v1/computers/${bad}`, {}), 400, "EINVAL");
      await expectError(await api(`/v1/computers/${bad}`), 400, "EINVAL");
      await expectError(
        await api(`/v1/computers/${bad}/files/a`, { method: "PUT", body: "x" }),
        400,
        "EINVAL",
      );
      expect(await api("/v1/computers?limit=100").then((r) => r.json())).toEqual(listBefore);
    },
  );

  it("accepts a 63-character id", async () => {
    await createComputer({}, `a${"0".repeat(62)}`.slice(0, 63));
  });

  it("404s unknown routes and 405s wrong methods", async () => {
    const id = await createComputer();
    await expectError(await api(`/v1/computers/${id}/nope`), 404, "ENOENT");
    await expectError(await api("/v2/computers"), 404, "ENOENT");
    const res = await api(`/v1/computers/${id}`, { method: "POST" });
    await expectError(res, 405, "ENOTSUP");
    expect(res.headers.get("Allow")).toBe("PUT, GET, DELETE");
    await expectError(await api(`/v1/computers/${id}/fs`, { method: "GET" }), 405, "ENOTSUP");
  });
});
