/**
 * computerd-spawner's protocol (native/spawner.c) as the program itself answers it: a malformed
 * request is an error naming its id, not silence; a command's pipes are there to open through
 * its /proc/PID/fd until computerd says it took them; an exec that fails is an error with errno.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { SPAWNER_HELPER, spawnerFrame } from "./spawner.ts";

const running: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** The spawner, and its reply lines one at a time. */
function start() {
  const child = spawn(SPAWNER_HELPER, [], { stdio: ["pipe", "pipe", "inherit"] });
  running.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  return { child, next, send: (fields: string[]) => child.stdin?.write(spawnerFrame(fields)) };
}

// build:native makes it (make deps): a missing program fails here rather than skipping.
describe("computerd-spawner", () => {
  it("answers a malformed spawn with EINVAL, and a missing program with ENOENT", async () => {
    const { next, send } = start();
    expect(await next()).toMatch(/^ready \d+$/);
    send(["spawn", "7", "0"]);
    expect(await next()).toBe("error 7 22");
    send(["spawn", "8", "0", "", "", "1", "/nonexistent/program", "0"]);
    expect(await next()).toBe("error 8 2");
  });

  it("holds a command's output in the pipe until it is taken, then reports its exit", async () => {
    const { child, next, send } = start();
    expect(await next()).toMatch(/^ready \d+$/);
    send(["spawn", "1", "0", "", "", "3", "/bin/sh", "-c", "echo out; echo err >&2; exit 3", "0"]);
    const [type, id, , stdout, stderr, stdin, warm] = (await next()).split(" ");
    expect([type, id, stdin, warm]).toEqual(["pid", "1", "-1", "0"]);
    // It has exited (its output waits in the pipes the spawner still holds).
    expect(await next()).toBe("exit 1 3 0");
    const read = (fd: string | undefined) => readFileSync(`/proc/${child.pid}/fd/${fd}`, "utf8");
    // Opened here, the pipe's writer is gone: reading it to its end ends.
    expect([read(stdout), read(stderr)]).toEqual(["out\n", "err\n"]);
    send(["taken", "1"]);
  });
});
