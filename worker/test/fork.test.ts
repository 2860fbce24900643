/** POST /v1/computers/:id/fork: a new computer with the same tree, from now or a checkpoint. */
import { env } from "cloudflare:test";
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

function withoutTimes(snap: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(snap).map(([k, v]) => [k, v.replace(/ \S+Z /, " ")]));
}

describe("fork", () => {
  it("copies the current tree into a new computer (201) that then lives its own life", async () => {
    const source = await createComputer({ quotaBytes: 50 * 1024 * 1024, egress: { allow: ["example.com"] } });
    await writeFile(source, "a.txt", "alpha");
    await writeFile(source, "deep/er/b.bin", new Uint8Array(3 * 1024 * 1024 + 17).fill(9));
    await api(`/v1/computers/${source}/fs`, {
      method: "POST",
      body: JSON.stringify({ op: "symlink", target: "a.txt", path: "ln" }),
    });
    const to = freshId("fork");
    const res = await apiJson("POST", `/v1/computers/${source}/fork`, { to });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({
      id: to,
      quotaBytes: 50 * 1024 * 1024,
      egress: { allow: ["example.com"] },
    });
    expect(withoutTimes(await snapshot(to))).toEqual(withoutTimes(await snapshot(source)));
    expect(await readText(to, "ln")).toBe("alpha");

    await writeFile(source, "a.txt", "changed in source");
    await writeFile(to, "only-in-fork.txt", "f");
    expect(await readText(to, "a.txt")).toBe("alpha");
    expect((await api(`/v1/computers/${source}/files/only-in-fork.txt`)).status).toBe(404);
    const cps = (await api(`/v1/computers/${source}/checkpoints`).then((r) => r.json())) as {
      checkpoints: unknown[];
    };
    expect(cps.checkpoints).toEqual([]);
    const listed = (await api("/v1/computers?limit=100").then((r) => r.json())) as {
      computers: { id: string }[];
    };
    expect(listed.computers.map((c) => c.id)).toContain(to);
  });

  it("forks from a checkpoint", async () => {
    const source = await createComputer();
    await writeFile(source, "a.txt", "v1");
    await apiJson("POST", `/v1/computers/${source}/checkpoints`, { name: "v1" });
    await writeFile(source, "a.txt", "v2");
    await writeFile(source, "later.txt", "later");
    const to = freshId("fork");
    expect((await apiJson("POST", `/v1/computers/${source}/fork`, { to, checkpoint: "v1" })).status).toBe(
      201,
    );
    expect(await readText(to, "a.txt")).toBe("v1");
    expect((await api(`/v1/computers/${to}/files/later.txt`)).status).toBe(404);
    expect(await readText(source, "a.txt")).toBe("v2");
  });

  it("into an existing computer → 409 EEXIST, the target untouched", async () => {
    const source = await createComputer();
    await writeFile(source, "s.txt", "s");
    const target = await createComputer();
    await writeFile(target, "t.txt", "t");
    const before = await snapshot(target);
    await expectError(await apiJson("POST", `/v1/computers/${source}/fork`, { to: target }), 409, "EEXIST");
    expect(await snapshot(target)).toEqual(before);
  });

  it.each([
    ["missing to", {}, 400, "EINVAL"],
    ["bad to", { to: "Bad_Id" }, 400, "EINVAL"],
    ["bad checkpoint", { to: "x-ok", checkpoint: "../x" }, 400, "EINVAL"],
    ["unknown checkpoint", { to: "x-ok", checkpoint: "nope" }, 404, "ENOENT"],
  ])("%s → %i %s and no computer appears", async (_, body, status, code) => {
    const source = await createComputer();
    const to = freshId("fork");
    const withTo = "to" in body ? { ...body, to: body.to === "x-ok" ? to : body.to } : body;
    await expectError(await apiJson("POST", `/v1/computers/${source}/fork`, withTo), status, code);
    await expectError(await api(`/v1/computers/${to}`), 404, "ENOENT");
  });

  it("into itself → 400", async () => {
    const source = await createComputer();
    await expectError(await apiJson("POST", `/v1/computers/${source}/fork`, { to: source }), 400, "EINVAL");
  });

  it("from a missing computer → 404", async () => {
    await expectError(
      await apiJson("POST", `/v1/computers/${freshId()}/fork`, { to: freshId() }),
      404,
      "ENOENT",
    );
  });
});

describe("fork paging and the import state", () => {
  it("copies a tree larger than one export page", async () => {
    const source = await createComputer();
    const names = Array.from({ length: 260 }, (_, i) => `d${i % 4}/f${i}.txt`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((n) => writeFile(source, n, `content of ${n}`)));
    }
    const to = freshId("fork");
    expect((await apiJson("POST", `/v1/computers/${source}/fork`, { to })).status).toBe(201);
    expect(withoutTimes(await snapshot(to))).toEqual(withoutTimes(await snapshot(source)));
  });

  it("a half-imported target is invisible, refuses PUT, and DELETE clears it", async () => {
    const id = freshId("stuck");
    const stub = env.COMPUTER.getByName(id);
    const begun = await stub.forkBegin(id, { quotaBytes: 1000, egress: "none" });
    expect(begun.ok).toBe(true);
    const again = await stub.forkBegin(id, { quotaBytes: 1000, egress: "none" });
    expect(again).toMatchObject({ ok: false, error: { code: "EEXIST" } });
    expect(await stub.forkImport("wrong-import-id", [])).toMatchObject({
      ok: false,
      error: { code: "EBUSY" },
    });
    await expectError(await api(`/v1/computers/${id}`), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}/files/`), 404, "ENOENT");
    await expectError(await apiJson("PUT", `/v1/computers/${id}`, {}), 409, "EBUSY");
    const listed = (await api("/v1/computers?limit=100").then((r) => r.json())) as {
      computers: { id: string }[];
    };
    expect(listed.computers.map((c) => c.id)).not.toContain(id);
    expect((await api(`/v1/computers/${id}`, { method: "DELETE" })).status).toBe(204);
    await createComputer({}, id);
  });

  it("an aborted import leaves nothing behind", async () => {
    const id = freshId("aborted");
    const stub = env.COMPUTER.getByName(id);
    const begun = await stub.forkBegin(id, { quotaBytes: null, egress: "all" });
    if (!begun.ok) throw new Error("forkBegin failed");
    await stub.forkAbort("not-the-import");
    await expectError(await apiJson("PUT", `/v1/computers/${id}`, {}), 409, "EBUSY");
    await stub.forkAbort(begun.value);
    expect((await apiJson("PUT", `/v1/computers/${id}`, {})).status).toBe(201);
  });
});
