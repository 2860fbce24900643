/** The runner's limits: timeout (SIGTERM, then SIGKILL), kill by id, the output cap and its marker. */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { eachSpawner } from "../../test/exec-harness.ts";
import { truncationMarker } from "./output-limit.ts";

/** A process's state letter from /proc ("gone" when it has been reaped). */
function processState(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .charAt(0);
  } catch {
    return "gone";
  }
}

const SHORT = { cwd: "/tmp", timeoutMs: 300, maxTimeoutMs: 60_000, outputCap: 1 << 20 };

eachSpawner((newTable) => {
  describe("timeout", () => {
    test("SIGTERM ends a command that honours it: status timeout, 128+15", async () => {
      const result = await newTable({ defaults: SHORT }).start({ command: "echo started; sleep 30" }).done;
      expect(result).toMatchObject({
        status: "timeout",
        exitCode: 143,
        signal: "SIGTERM",
        stdout: "started\n",
      });
      expect(result.durationMs).toBeLessThan(3000);
    });

    test("a process group ignoring SIGTERM is SIGKILLed after the grace period", async () => {
      const table = newTable({ defaults: SHORT, killGraceMs: 400 });
      const started = performance.now();
      const exec = table.start({ command: "trap 'echo got-term' TERM; while :; do sleep 0.05; done" });
      const result = await exec.done;
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ status: "timeout", exitCode: 137, signal: "SIGKILL" });
      expect(result.stdout).toContain("got-term");
      expect(elapsed).toBeGreaterThanOrEqual(650);
      expect(elapsed).toBeLessThan(5000);
    });

    test("the request's timeout is capped by maxTimeoutMs", async () => {
      const table = newTable({ defaults: { ...SHORT, timeoutMs: 60_000, maxTimeoutMs: 200 } });
      const result = await table.start({ command: "sleep 30", timeoutMs: 120_000 }).done;
      expect(result.status).toBe("timeout");
    });

    test("background children in the group go too", async () => {
      const table = newTable({ defaults: SHORT });
      const result = await table.start({ command: "sleep 30 & echo $!; wait" }).done;
      const pid = Number(result.stdout.trim());
      expect(result.status).toBe("timeout");
      // Signal delivery is asynchronous: give the kernel a moment to finish the child off.
      await expect.poll(() => processState(pid), { timeout: 2000 }).toMatch(/^(gone|Z)$/);
    });
  });

  describe("kill", () => {
    test("kill by id ends the group: status killed, 128+9", async () => {
      const table = newTable();
      const exec = table.start({ command: "sleep 30 & sleep 30" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(table.kill(exec.id)).toBe(true);
      const result = await exec.done;
      expect(result).toMatchObject({ status: "killed", exitCode: 137, signal: "SIGKILL" });
      expect(table.kill(exec.id)).toBe(false);
      expect(table.kill("ex_unknown")).toBe(false);
    });
  });

  describe("output cap", () => {
    test("output past the cap is dropped; one marker says how much", async () => {
      const table = newTable({ defaults: { ...SHORT, timeoutMs: 20_000, outputCap: 1000 } });
      const exec = table.start({ command: "head -c 5000 /dev/zero | tr '\\0' a; echo tail >&2" });
      const result = await exec.done;
      expect(result.truncated).toBe(true);
      expect(result.droppedBytes).toBe(4005);
      expect(result.stdout).toBe(`${"a".repeat(1000)}${truncationMarker(4005)}`);
      expect(result.stderr).toBe("");
      const markers = exec.log.events().filter((event) => event.data.includes("[output truncated"));
      expect(markers).toHaveLength(1);
    });

    test("the cap counts both streams and never splits a character", async () => {
      const table = newTable({ defaults: { ...SHORT, timeoutMs: 20_000, outputCap: 11 } });
      const result = await table.start({ command: "printf 1234; printf 56789 >&2; sleep 0.05; printf 'é€'" })
        .done;
      expect(result.stdout).toBe(`1234é${truncationMarker(3)}`);
      expect(result.stderr).toBe("56789");
    });

    test("a request may lower the cap but not raise it", async () => {
      const table = newTable({ defaults: { ...SHORT, timeoutMs: 20_000, outputCap: 100 } });
      expect((await table.start({ command: "printf 123456", outputCap: 3 }).done).stdout).toBe(
        `123${truncationMarker(3)}`,
      );
      const big = await table.start({ command: "head -c 200 /dev/zero", outputCap: 1000 }).done;
      expect(big.droppedBytes).toBe(100);
    });

    test("output under the cap is not marked", async () => {
      const result = await newTable().start({ command: "echo small" }).done;
      expect(result).toMatchObject({ truncated: false, droppedBytes: 0, stdout: "small\n" });
    });
  });
});
