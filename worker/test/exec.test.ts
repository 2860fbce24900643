/** Exec and artifact routes before any runtime exists: validated, then 503 EUNAVAILABLE. */
import { describe, expect, it } from "vitest";
import { api, apiJson, createComputer, expectError, freshId } from "./helpers.ts";

describe("exec", () => {
  it.each(["container", "shell", "js"])("runtime %s → 503 EUNAVAILABLE", async (runtime) => {
    const id = await createComputer();
    const body = await expectError(
      await apiJson("POST", `/v1/computers/${id}/exec`, { runtime, source: "echo hi" }),
      503,
      "EUNAVAILABLE",
    );
    expect(body.error.message).toBe(`runtime ${runtime} not available`);
  });

  it.each([
    ["unknown runtime", { runtime: "python", source: "print(1)" }],
    ["missing source", { runtime: "shell" }],
    ["bad timeout", { runtime: "shell", source: "true", timeoutMs: -5 }],
  ])("%s → 400 EINVAL", async (_, body) => {
    const id = await createComputer();
    await expectError(await apiJson("POST", `/v1/computers/${id}/exec`, body), 400, "EINVAL");
  });

  it("lists no execs and 404s exec ids", async () => {
    const id = await createComputer();
    expect(await api(`/v1/computers/${id}/exec`).then((r) => r.json())).toEqual({ execs: [] });
    await expectError(await api(`/v1/computers/${id}/exec/ex_123`), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}/exec/ex_123`, { method: "DELETE" }), 404, "ENOENT");
  });

  it("404s on a missing computer", async () => {
    await expectError(
      await apiJson("POST", `/v1/computers/${freshId()}/exec`, { runtime: "js", source: "" }),
      404,
      "ENOENT",
    );
  });
});

describe("artifacts", () => {
  it("publish and registry → 503 EUNAVAILABLE", async () => {
    const id = await createComputer();
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/artifacts`, { path: "out" }),
      503,
      "EUNAVAILABLE",
    );
    await expectError(await api("/v1/artifacts"), 503, "EUNAVAILABLE");
    await expectError(await api("/v1/artifacts/site"), 503, "EUNAVAILABLE");
  });
});
