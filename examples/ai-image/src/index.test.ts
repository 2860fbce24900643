/** The Worker's answers to requests it refuses before any model or computer is involved. */
import { describe, expect, it } from "vitest";
import worker, { type Env } from "./index.ts";

const env: Env = { COMPUTER_URL: "http://127.0.0.1:9", COMPUTER_TOKEN: "t", COMPUTER_ID: "ai-image" };

async function ask(init: RequestInit): Promise<{ status: number; body: unknown }> {
  const request = new Request("http://ai-image/", init) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, env);
  return { status: res.status, body: await res.json() };
}

describe("the ai-image Worker", () => {
  it("takes only POST", async () => {
    expect(await ask({ method: "GET" })).toEqual({
      status: 405,
      body: { error: { code: "ENOTSUP", message: "POST a JSON prompt" } },
    });
  });

  it("answers 400 EINVAL to malformed JSON and to a request without a prompt", async () => {
    const malformed = await ask({ method: "POST", body: "{" });
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: "EINVAL" } } });
    const empty = await ask({ method: "POST", body: JSON.stringify({ prompt: "" }) });
    expect(empty).toMatchObject({ status: 400, body: { error: { code: "EINVAL" } } });
  });

  it("answers 502 with the API's code when the computer cannot be reached", async () => {
    const warn = console.warn;
    console.warn = () => {};
    try {
      const down = await ask({
        method: "POST",
        body: JSON.stringify({ prompt: "a cat", width: 256, height: 256 }),
      });
      expect(down).toMatchObject({ status: 502, body: { error: { code: "ECONNREFUSED" } } });
    } finally {
      console.warn = warn;
    }
  });
});
