/**
 * Background processes (ExecSpec.detached): no timeout unless asked (the daemon's default
 * does not apply), their own timeout otherwise, marked in the running state, and killed by
 * the daemon once the sink of the DO that started them fails.
 */
import type { ExecExit, ExecSink } from "@computer/vfs/sync";
import { describe, expect, test } from "vitest";
import { testTable } from "../../test/exec-harness.ts";
import { DaemonTarget } from "../server/daemon-api.ts";
import { planExec } from "./exec-spec.ts";

describe("detached execs", () => {
  test("outlive the daemon's default timeout and show as detached while they run", async () => {
    const table = testTable({ defaults: { cwd: "/", timeoutMs: 100, maxTimeoutMs: 200, outputCap: 1024 } });
    const background = table.start({ command: "sleep 1; echo done", detached: true });
    const foreground = table.start({ command: "sleep 1; echo done" });
    expect(background.snapshot()).toMatchObject({ status: "running", detached: true });
    expect(foreground.snapshot()).not.toHaveProperty("detached");
    expect((await foreground.done).status).toBe("timeout");
    expect(await background.done).toMatchObject({ status: "completed", stdout: "done\n" });
  });

  test("keep a timeout they ask for, even past the daemon's largest (the DO caps it)", async () => {
    const defaults = { cwd: "/", timeoutMs: 50, maxTimeoutMs: 60, outputCap: 1024 };
    expect(planExec({ command: "x", detached: true, timeoutMs: 150 }, defaults).timeoutMs).toBe(150);
    expect(planExec({ command: "x", detached: true }, defaults).timeoutMs).toBeUndefined();
    expect(planExec({ command: "x", timeoutMs: 150 }, defaults).timeoutMs).toBe(60);
    const exec = testTable({ defaults }).start({ command: "sleep 30", detached: true, timeoutMs: 150 });
    expect((await exec.done).status).toBe("timeout");
  });

  test("are killed once the session of their sink breaks (the link to the DO is gone)", async () => {
    const table = testTable();
    const target = new DaemonTarget(table);
    const broken: (() => void)[] = [];
    const sink = {
      output: () => undefined,
      exit: (_exit: ExecExit) => undefined,
      onRpcBroken: (callback: () => void) => broken.push(callback),
    } satisfies ExecSink & { onRpcBroken: unknown };
    target.exec({ id: "ex_bg", command: "echo up; sleep 30", detached: true }, sink);
    target.exec({ id: "ex_fg", command: "echo up; sleep 0.3; echo end" }, sink);
    for (const callback of broken) callback();
    expect(await table.get("ex_bg")?.done).toMatchObject({ status: "killed" });
    // A foreground command goes on (a new link can attach to it).
    expect(await table.get("ex_fg")?.done).toMatchObject({ status: "completed", stdout: "up\nend\n" });
  });

  test("are killed when their output cannot be delivered", async () => {
    const table = testTable();
    const failing: ExecSink = {
      output: () => Promise.reject(new Error("link closed")),
      exit: () => undefined,
    };
    new DaemonTarget(table).exec(
      { id: "ex_bg", command: "echo up; sleep 0.2; echo more; sleep 30", detached: true },
      failing,
    );
    expect(await table.get("ex_bg")?.done).toMatchObject({ status: "killed" });
  });

  test("a detached flag that is not a boolean is EINVAL", () => {
    expect(() => testTable().start({ command: "true", detached: "yes" })).toThrow(
      expect.objectContaining({ code: "EINVAL" }),
    );
  });
});
