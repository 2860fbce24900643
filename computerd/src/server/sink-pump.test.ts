/** Pumping output into an ExecSink: order, the unacknowledged-bytes window, a failing sink. */
import { describe, expect, test, vi } from "vitest";
import { testTable } from "../../test/exec-harness.ts";
import type { ExecExit, ExecSink } from "../exec/types.ts";
import { pumpToSink } from "./sink-pump.ts";

const BIG = { cwd: "/tmp", timeoutMs: 20_000, maxTimeoutMs: 20_000, outputCap: 1 << 30 };

describe("pumpToSink", () => {
  test("a sink that does not acknowledge holds the command back at the window", async () => {
    const table = testTable({ defaults: BIG });
    const exec = table.start({ command: "yes | head -c 100M" });
    const pending: (() => void)[] = [];
    let sent = 0;
    let exit: ExecExit | undefined;
    const sink: ExecSink = {
      output: (_id, _seq, _stream, data) => {
        sent += data.length;
        return new Promise<void>((resolve) => pending.push(resolve));
      },
      exit: (value) => {
        exit = value;
      },
    };
    const pumped = pumpToSink(exec, sink, -1, 64 * 1024);
    // The window fills, the pump stops reading, and the log pauses the command's pipes.
    await vi.waitFor(() => expect(exec.log.paused).toBe(true), { timeout: 10_000 });
    expect(exec.running).toBe(true);
    expect(sent).toBeLessThan(64 * 1024 + (1 << 20));
    const held = exec.log.events().reduce((sum, event) => sum + event.data.length, 0);
    expect(held).toBeLessThan(2 << 20);
    // Acknowledge everything from now on: the command runs to its end.
    sink.output = async (_id, _seq, _stream, data) => {
      sent += data.length;
    };
    for (const resolve of pending.splice(0)) resolve();
    expect(await pumped).toBe(true);
    expect(exit).toMatchObject({ status: "completed", exitCode: 0 });
    expect(sent).toBe(100 * (1 << 20));
  });

  test("a failing sink stops the pump; the command goes on and can be attached again", async () => {
    const table = testTable();
    const exec = table.start({ command: "echo 1; sleep 0.1; echo 2" });
    const broken: ExecSink = {
      output: () => Promise.reject(new Error("link lost")),
      exit: () => {},
    };
    expect(await pumpToSink(exec, broken)).toBe(false);
    const seen: string[] = [];
    let exited = false;
    const sink: ExecSink = {
      output: (_id, seq, _stream, data) => {
        seen.push(`${seq}:${data}`);
      },
      exit: () => {
        exited = true;
      },
    };
    expect(await pumpToSink(exec, sink)).toBe(true);
    expect(seen).toEqual(["0:1\n", "1:2\n"]);
    expect(exited).toBe(true);
  });
});
