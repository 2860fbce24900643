/**
 * The ai-image example on a real local fleet: the Worker (wrangler's dev server, no AI
 * binding) draws the image with the stand-in, writes it into the computer, publishes it, and
 * the public link serves a PNG of the asked size to anyone, without a token.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { ComputerClient } from "@computer/sdk";
import { decode } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiImage } from "./ai-image.ts";
import { STAND_IN_NAME } from "./src/stand-in.ts";

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet();
});

afterAll(async () => {
  await fleet?.stop();
});

describe("ai-image", () => {
  it("answers a public link to a PNG of the asked size, made by the stand-in, which says so", async () => {
    const logs: string[] = [];
    const connection = { url: fleet.url, token: fleet.adminToken };
    const answer = await aiImage(connection, {
      prompt: "a lighthouse on a cliff at dusk",
      width: 640,
      height: 384,
      onLog: (line) => logs.push(line),
    });
    expect(answer.generator).toBe(STAND_IN_NAME);
    expect(logs.join("\n")).toContain(`using the ${STAND_IN_NAME}`);
    expect(answer.link.startsWith(`${fleet.url}/a/ai-image/`)).toBe(true);

    const res = await fetch(answer.link);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await res.arrayBuffer());
    const png = decode(bytes);
    expect({ width: png.width, height: png.height }).toEqual({ width: 640, height: 384 });
    expect(bytes.length).toBe(answer.bytes);

    const inComputer = await new ComputerClient(connection).computer("ai-image").files.read(answer.path);
    expect(inComputer).toEqual(bytes);
  });

  it("refuses a request without a prompt: 400 EINVAL, nothing published", async () => {
    const connection = { url: fleet.url, token: fleet.adminToken };
    const client = new ComputerClient(connection);
    const before = await client.artifacts.get("ai-image");
    await expect(aiImage(connection, { prompt: "", onLog: () => {} })).rejects.toThrow(
      /answered 400: .*"code":"EINVAL".*'prompt' must be a non-empty string/,
    );
    expect((await client.artifacts.get("ai-image")).versions).toHaveLength(before.versions.length);
  });
});
