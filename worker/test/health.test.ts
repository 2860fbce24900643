/** GET /healthz and the OpenAPI document. */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("healthz", () => {
  it("answers ok without a token", async () => {
    const res = await SELF.fetch("http://computer.test/healthz");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
  });
});
