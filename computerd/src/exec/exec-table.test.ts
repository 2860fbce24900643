/** The exec table: listing, retention, and finding a finished exec in its log file. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir, testTable } from "../../test/exec-harness.ts";
import { execLogPath, readExecLogFile } from "./exec-log-file.ts";

describe("ExecTable", () => {
  test("lists running and finished execs", async () => {
    const table = testTable();
    const done = table.start({ id: "ex_a", command: "true" });
    await done.done;
    const running = table.start({ id: "ex_b", command: "sleep 30" });
    expect(table.running()).toEqual(["ex_b"]);
    expect(table.list().map((exec) => [exec.id, exec.status])).toEqual([
      ["ex_a", "completed"],
      ["ex_b", "running"],
    ]);
    await table.shutdown();
    expect((await running.done).status).toBe("killed");
  });

  test("finished execs leave memory after retainFinished; their log files still answer", async () => {
    const logDir = tempDir();
    const table = testTable({ retainFinished: 1, logDir });
    const first = await table.start({ id: "ex_1", command: "echo one; echo err >&2" }).done;
    await table.start({ id: "ex_2", command: "echo two" }).done;
    expect(table.get("ex_1")).toBeUndefined();
    expect(table.get("ex_2")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stored = await table.find("ex_1");
    expect(stored).toEqual({
      events: [
        { seq: 0, stream: "stdout", data: "one\n" },
        { seq: 1, stream: "stderr", data: "err\n" },
      ],
      result: first,
    });
    expect(await table.find("ex_none")).toBeUndefined();
    expect(await table.find("../../etc/passwd")).toBeUndefined();
  });
});

describe("log files", () => {
  test("a torn last line is skipped; a file without result reads as unfinished", async () => {
    const dir = tempDir();
    const path = execLogPath(dir, "ex_t");
    writeFileSync(path, `${JSON.stringify({ seq: 0, stream: "stdout", data: "x" })}\n{"seq":1,"str`);
    expect(await readExecLogFile(path)).toEqual({ events: [{ seq: 0, stream: "stdout", data: "x" }] });
    expect(await readExecLogFile(join(dir, "missing.jsonl"))).toBeUndefined();
  });
});
