/**
 * Back-pressure end to end: a reader that does not read pauses the command's pipes (the
 * command blocks on write) instead of letting the daemon buffer without bound.
 */
import { describe, expect, test, vi } from "vitest";
import { eachSpawner } from "../../test/exec-harness.ts";

const BIG_CAP = { cwd: "/tmp", timeoutMs: 60_000, maxTimeoutMs: 60_000, outputCap: 1 << 30 };

eachSpawner((newTable) => {
  describe("a paused consumer", () => {
    test("stalls `yes | head -c 200M` near the high watermark; reading resumes it", async () => {
      const table = newTable({
        defaults: BIG_CAP,
        watermarks: { highWaterBytes: 256 << 10, lowWaterBytes: 64 << 10 },
      });
      const exec = table.start({ command: "yes | head -c 200M; echo done >&2" });
      const reader = exec.log.reader();
      await vi.waitFor(() => expect(exec.log.paused).toBe(true), { timeout: 10_000 });
      // Held output: the high watermark plus at most one read per stream in flight.
      const held = exec.log.events().reduce((sum, event) => sum + event.data.length, 0);
      expect(exec.running).toBe(true);
      expect(exec.log.paused).toBe(true);
      expect(held).toBeLessThan(2 << 20);
      // An observation window, not a wait: while paused, nothing more may arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(exec.log.events().reduce((sum, event) => sum + event.data.length, 0)).toBe(held);
      // Reading 4 MiB lets the command go on as far again.
      let read = 0;
      while (read < 4 << 20) {
        const event = await reader.next();
        if (!event) break;
        read += event.data.length;
      }
      expect(exec.running).toBe(true);
      expect(exec.log.events().reduce((sum, event) => sum + event.data.length, 0)).toBeLessThan(
        read + (2 << 20),
      );
      reader.close();
      exec.kill();
      expect((await exec.done).status).toBe("killed");
    });

    test("with the default cap, output past it is dropped and memory stays at the cap", async () => {
      const table = newTable({ defaults: { ...BIG_CAP, outputCap: 1 << 20 } });
      const exec = table.start({ command: "yes | head -c 200M" });
      const result = await exec.done;
      expect(result.status).toBe("completed");
      expect(result.truncated).toBe(true);
      expect(result.droppedBytes).toBe(200 * (1 << 20) - (1 << 20));
      expect(result.stdout.length).toBeLessThan((1 << 20) + 100);
      // 200 MiB through the pipes: seconds on a loaded machine.
    }, 60_000);

    test("a killed command is not kept alive by a reader that stopped reading", async () => {
      const table = newTable({ defaults: BIG_CAP });
      const exec = table.start({ command: "yes" });
      exec.log.reader();
      await vi.waitFor(() => expect(exec.log.paused).toBe(true), { timeout: 10_000 });
      exec.kill();
      expect((await exec.done).status).toBe("killed");
    });

    test("a timed-out command is not kept alive by a reader that stopped reading", async () => {
      const table = newTable({ defaults: { ...BIG_CAP, timeoutMs: 300 } });
      const exec = table.start({ command: "yes" });
      exec.log.reader();
      expect((await exec.done).status).toBe("timeout");
    });
  });
});
