/** hello-worker's routes, called as the runtime calls them. */
import { describe, expect, it } from "vitest";
import worker from "./index.ts";

const get = (path: string) => worker.fetch(new Request(`https://hello.example${path}`));

describe("hello-worker", () => {
  it("greets", async () => {
    expect(await get("/").text()).toBe("Hello from a Worker built in a computer!\n");
  });

  it("adds", async () => {
    expect(await get("/sum?a=2&b=40").json()).toEqual({ sum: 42 });
    expect(get("/sum?a=x&b=1").status).toBe(400);
  });

  it("answers 404 elsewhere", () => {
    expect(get("/nope").status).toBe(404);
  });
});
