/** The exec log: re-attaching from a seq, waiting readers, back-pressure from slow readers. */
import { describe, expect, test } from "vitest";
import { readAll, testTable } from "../../test/exec-harness.ts";
import { ExecLog } from "./exec-log.ts";
import type { ExecResult } from "./types.ts";

const RESULT: ExecResult = {
  id: "ex_1",
  runtime: "container",
  status: "completed",
  exitCode: 0,
  stdout: "",
  stderr: "",
  truncated: false,
  droppedBytes: 0,
  durationMs: 1,
  startedAt: new Date(0).toISOString(),
  lastSeq: -1,
};

describe("readers", () => {
  test("a reader from seq N gets the events after N, then waits, then ends with the result", async () => {
    const log = new ExecLog();
    log.append("stdout", "a", 1);
    log.append("stderr", "b", 1);
    const reader = log.reader(0);
    expect(await reader.next()).toEqual({ seq: 1, stream: "stderr", data: "b" });
    const pending = reader.next();
    log.append("stdout", "c", 1);
    expect(await pending).toEqual({ seq: 2, stream: "stdout", data: "c" });
    const end = reader.next();
    log.finish(RESULT);
    expect(await end).toBeUndefined();
    expect(log.events(1).map((event) => event.seq)).toEqual([2]);
  });

  test("closing a waiting reader ends it", async () => {
    const log = new ExecLog();
    const reader = log.reader();
    const pending = reader.next();
    reader.close();
    expect(await pending).toBeUndefined();
  });

  test("re-attach to a running exec and to a finished one, from any seq", async () => {
    const exec = testTable().start({ command: "for i in 1 2 3; do echo $i; sleep 0.05; done" });
    const first = exec.log.reader();
    expect(await first.next()).toMatchObject({ seq: 0, data: "1\n" });
    first.close();
    const again = await readAll(exec.log.reader(0));
    expect(again.map((event) => event.data)).toEqual(["2\n", "3\n"]);
    await exec.done;
    expect((await readAll(exec.log.reader(1))).map((event) => event.seq)).toEqual([2]);
    expect(await readAll(exec.log.reader(2))).toEqual([]);
    expect(await readAll(exec.log.reader())).toHaveLength(3);
  });
});

describe("back-pressure", () => {
  test("raised past the high watermark, released under the low one", () => {
    const log = new ExecLog({ highWaterBytes: 10, lowWaterBytes: 4 });
    const changes: boolean[] = [];
    log.onPressure = (paused) => changes.push(paused);
    const reader = log.reader();
    for (let i = 0; i < 4; i++) log.append("stdout", "xxxx", 4);
    expect(changes).toEqual([true]);
    void reader.next();
    void reader.next();
    expect(log.paused).toBe(true);
    void reader.next();
    expect(log.paused).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  test("readers without flow control and closed readers never hold the producer back", () => {
    const log = new ExecLog({ highWaterBytes: 10, lowWaterBytes: 4 });
    log.reader(-1, false);
    const slow = log.reader();
    for (let i = 0; i < 4; i++) log.append("stdout", "xxxx", 4);
    expect(log.paused).toBe(true);
    slow.close();
    expect(log.paused).toBe(false);
  });

  test("finishing releases the pressure", () => {
    const log = new ExecLog({ highWaterBytes: 1, lowWaterBytes: 0 });
    log.reader();
    log.append("stdout", "xx", 2);
    expect(log.paused).toBe(true);
    log.finish(RESULT);
    expect(log.paused).toBe(false);
  });
});
