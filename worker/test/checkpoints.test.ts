/** Checkpoints: create, list, restore, and their refusals. */
import { describe, expect, it } from "vitest";
import {
  api,
  apiJson,
  createComputer,
  expectError,
  mintToken,
  readText,
  snapshot,
  writeFile,
} from "./helpers.ts";

describe("checkpoints", () => {
  it("creates (201 { name, rev, createdAt }), lists and restores", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "v1");
    await writeFile(id, "dir/b.txt", "b");
    const saved = await snapshot(id);
    const res = await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "before-change" });
    expect(res.status).toBe(201);
    const cp = (await res.json()) as { name: string; rev: number; createdAt: string };
    expect(cp).toEqual({ name: "before-change", rev: expect.any(Number), createdAt: expect.any(String) });

    await writeFile(id, "a.txt", "v2");
    await writeFile(id, "new.txt", "new");
    await api(`/v1/computers/${id}/files/dir?recursive=1`, { method: "DELETE" });

    const list = (await api(`/v1/computers/${id}/checkpoints`).then((r) => r.json())) as {
      checkpoints: unknown[];
    };
    expect(list.checkpoints).toEqual([cp]);

    const restored = await api(`/v1/computers/${id}/checkpoints/before-change/restore`, { method: "POST" });
    expect(restored.status).toBe(200);
    expect(await restored.json()).toEqual({ name: "before-change", rev: expect.any(Number) });
    expect(await readText(id, "a.txt")).toBe("v1");
    expect(await readText(id, "dir/b.txt")).toBe("b");
    const now = await snapshot(id);
    expect(Object.keys(now).sort()).toEqual(Object.keys(saved).sort());
    expect(now["#usedBytes"]).toBe(saved["#usedBytes"]);
  });

  it("a duplicate name → 409 EEXIST", async () => {
    const id = await createComputer();
    await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "one" });
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "one" }),
      409,
      "EEXIST",
    );
  });

  it.each([
    ["missing", {}],
    ["empty", { name: "" }],
    ["slash", { name: "a/b" }],
    ["dot first", { name: ".x" }],
    ["reserved prefix", { name: "fork-tmp-1" }],
    ["too long", { name: "x".repeat(65) }],
  ])("a %s name → 400 EINVAL", async (_, body) => {
    const id = await createComputer();
    await expectError(await apiJson("POST", `/v1/computers/${id}/checkpoints`, body), 400, "EINVAL");
    expect(await api(`/v1/computers/${id}/checkpoints`).then((r) => r.json())).toEqual({ checkpoints: [] });
  });

  it("restoring an unknown checkpoint → 404 and changes nothing", async () => {
    const id = await createComputer();
    await writeFile(id, "a", "a");
    const before = await snapshot(id);
    await expectError(
      await api(`/v1/computers/${id}/checkpoints/nope/restore`, { method: "POST" }),
      404,
      "ENOENT",
    );
    await expectError(
      await api(`/v1/computers/${id}/checkpoints/bad%2Fname/restore`, { method: "POST" }),
      400,
      "EINVAL",
    );
    expect(await snapshot(id)).toEqual(before);
  });

  it("a read-only token lists but cannot create or restore", async () => {
    const id = await createComputer();
    await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "c" });
    const ro = await mintToken(id, "ro");
    expect((await api(`/v1/computers/${id}/checkpoints`, { token: ro })).status).toBe(200);
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "d" }, ro),
      403,
      "EFORBIDDEN",
    );
    await expectError(
      await api(`/v1/computers/${id}/checkpoints/c/restore`, { method: "POST", token: ro }),
      403,
      "EFORBIDDEN",
    );
  });
});
