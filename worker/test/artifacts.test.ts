/** Artifact routes before they are wired to the bucket: 503 EUNAVAILABLE. */
import { describe, it } from "vitest";
import { api, apiJson, createComputer, expectError } from "./helpers.ts";

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
