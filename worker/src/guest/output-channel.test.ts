import { describe, expect, it } from "vitest";
import type { OutputPiece } from "../guest-hosting/guest-wire.ts";
import { OutputChannel, TRUNCATION_MARKER } from "./output-channel.ts";

function recorder(): { calls: OutputPiece[][]; api: { write(pieces: OutputPiece[]): Promise<void> } } {
  const calls: OutputPiece[][] = [];
  return {
    calls,
    api: {
      async write(pieces) {
        calls.push(pieces.map((p) => ({ ...p })));
        await new Promise((resolve) => setTimeout(resolve, 1));
      },
    },
  };
}

describe("OutputChannel", () => {
  it("keeps the order across streams and coalesces while a send is in flight", async () => {
    const { calls, api } = recorder();
    const channel = new OutputChannel(api, 1024);
    channel.write("stdout", "a");
    channel.write("stdout", "b");
    channel.write("stderr", "c");
    channel.write("stdout", "d");
    await channel.flush();
    // The first piece leaves at once; what comes while it is in flight travels in one call.
    expect(calls).toEqual([
      [{ stream: "stdout", data: "a" }],
      [
        { stream: "stdout", data: "b" },
        { stream: "stderr", data: "c" },
        { stream: "stdout", data: "d" },
      ],
    ]);
    expect(channel.truncated).toBe(false);
  });

  it("cuts at the cap on a character boundary and ends with the marker", async () => {
    const { calls, api } = recorder();
    const cap = 16 + new TextEncoder().encode(TRUNCATION_MARKER).byteLength;
    const channel = new OutputChannel(api, cap);
    channel.write("stdout", "0123456789abcde");
    channel.write("stdout", "éé");
    channel.write("stdout", "dropped");
    await channel.flush();
    const sent = calls.flat();
    // "éé" does not fit in the one byte left: no half character is sent.
    expect(sent.map((p) => p.data).join("")).toBe(`0123456789abcde${TRUNCATION_MARKER}`);
    expect(sent.at(-1)).toEqual({ stream: "stderr", data: TRUNCATION_MARKER });
    expect(channel.truncated).toBe(true);
  });
});
