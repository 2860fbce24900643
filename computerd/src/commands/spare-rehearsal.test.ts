/** The spare's HTTP rehearsal makes its exchange and leaves no server or socket behind. */
import { describe, expect, it } from "vitest";
import { rehearseHttp } from "./spare-rehearsal.ts";

const network = () =>
  process.getActiveResourcesInfo().filter((name) => name === "TCPServerWrap" || name === "TCPSocketWrap");

describe("rehearseHttp", () => {
  it("answers once its exchange is done, holding no server or connection after", async () => {
    const before = network().length;
    await rehearseHttp();
    // Closed handles go once libuv has closed them, a turn of the loop or two later.
    await expect.poll(() => network().length).toBe(before);
  });
});
