/**
 * The FUSE loop follows a stream of small writes onto its writer's CPU (native/writer-cpu.h):
 * each write is a synchronous round trip, and on one CPU the two threads hand over without a
 * cross-CPU wake-up. It pins itself while it answers the stream and lets go at the release.
 */

import { readdirSync, readFileSync } from "node:fs";
import { canRun } from "@computer/fleet/capabilities";
import { expect, it, vi } from "vitest";
import { holdingOpen } from "./holding-open.ts";
import { describeFreshMount } from "./mounted-mirror.ts";

/** The CPU lists this process's threads may run on, by thread id. */
function threadCpus(): Map<string, string> {
  const cpus = new Map<string, string>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const status = readFileSync(`/proc/self/task/${tid}/status`, "utf8");
      const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)?.[1];
      if (list) cpus.set(tid, list);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return cpus;
}

/** The CPUs in a list such as "0-3,6". */
function cpusIn(list: string): number[] {
  return list.split(",").flatMap((part) => {
    const [from, to = from] = part.split("-").map(Number) as [number, number?];
    return Array.from({ length: (to as number) - from + 1 }, (_, i) => from + i);
  });
}

const ownCpus = cpusIn(threadCpus().get(String(process.pid)) ?? "0");

describeFreshMount("the loop on the writer's CPU", { prefix: "computerd-writer-cpu-" }, (m) => {
  // With one CPU there is nowhere else to run: says so, and fails where capabilities are required (CI).
  it.skipIf(!canRun("the loop on the writer's CPU", ownCpus.length < 2 ? ["a second CPU"] : []))(
    "runs on a small-write stream's CPU while it answers it, and lets go at the close",
    async () => {
      const cpu = String(ownCpus[ownCpus.length - 1]);
      const pinnedThreads = () => [...threadCpus().values()].filter((list) => list === cpu).length;
      expect(pinnedThreads()).toBe(0);
      // 1,000 writes of 4 KiB from a process on `cpu`, the file held open afterwards.
      const writer = await holdingOpen(
        `${m.mnt}/stream`,
        `for i in range(1000):
    assert os.write(fd, b"x" * 4096) == 4096`,
        `os.sched_setaffinity(0, {${cpu}})`,
      );
      expect(m.mount.counters["write (loop)"]).toBeGreaterThanOrEqual(1000);
      expect(pinnedThreads()).toBe(1);
      await writer.close();
      // The kernel sends the release after the close, in the background.
      await vi.waitFor(() => expect(pinnedThreads()).toBe(0), { timeout: 10_000, interval: 20 });
      await m.mount.flushAll();
      expect(m.mirror.vfs.stat("/stream").size).toBe(1000 * 4096);
    },
  );
});
