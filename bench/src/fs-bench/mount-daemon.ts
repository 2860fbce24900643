/**
 * The computerd mount as fs-bench runs it by default: exactly what `computerd mount --state DIR
 * --mount-point DIR` does (computerd/src/main.ts and commands/mount.ts: the V8 flag, openMirror,
 * then openMount with the fuse3 backend and default tuning), plus a control channel, because
 * `computerd mount` reports its counters only when it exits. Run as a child of the bench:
 *
 *   node mount-daemon.ts --state DIR --mount-point DIR
 *
 * stdout: JSON lines. {"event":"mounted",...} once serving; one {"event":"counters",...} per
 * stdin line "counters" (FUSE ops by name and SQL counters, now) or "fence" (the same after
 * `mount.flushAll()`, with `fenceMs`); {"event":"unmounted",...} at the end, as computerd
 * prints it. stdin EOF or SIGTERM/SIGINT/SIGHUP: flush, unmount, close, exit.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { openMirror } from "computerd/mirror";
import { openMount } from "computerd/mount";
import { countExternalMemoryGlobally } from "computerd/v8-heap";

/** This process's CPU time so far, every thread (the FUSE loop, the thread pool, V8's), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function fileBytes(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { state: { type: "string" }, "mount-point": { type: "string" } },
    strict: true,
  });
  const stateDir = values.state;
  const mountPoint = values["mount-point"];
  if (!stateDir || !mountPoint) {
    console.error("usage: mount-daemon.ts --state DIR --mount-point DIR");
    return 2;
  }
  // As computerd's main() does for `computerd mount`.
  countExternalMemoryGlobally();
  const mirror = openMirror(stateDir);
  const mount = await openMount({
    backend: "fuse3",
    mirror,
    mountPoint,
    fuse: { debug: false, pageCache: "auto" },
  });
  const snapshot = () => ({
    fuse: { ...mount.counters },
    sql: { ...mirror.sql.counters },
    storedBytes: fileBytes(join(stateDir, "mirror.sqlite")) + fileBytes(join(stateDir, "mirror.sqlite-wal")),
    cpuMs: cpuMs(),
  });
  emit({ event: "mounted", backend: mount.backend, mountPoint: mount.mountPoint ?? null, pid: process.pid });

  const reason = await new Promise<string>((resolve) => {
    for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(name, () => resolve(name));
    const lines = createInterface({ input: process.stdin });
    lines.on("line", (line) => {
      const request = line.trim();
      if (request === "counters") emit({ event: "counters", ...snapshot() });
      else if (request === "fence") {
        const started = performance.now();
        void mount.flushAll().then(
          () => emit({ event: "counters", fenceMs: performance.now() - started, ...snapshot() }),
          (err: unknown) => emit({ event: "error", request, message: String(err) }),
        );
      } else emit({ event: "error", request, message: "unknown request (counters | fence)" });
    });
    lines.once("close", () => resolve("stdin closed"));
  });
  await mount.unmount();
  const sql = { ...mirror.sql.counters };
  mirror.close();
  emit({ event: "unmounted", signal: reason, counters: mount.counters, sql });
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
    // Exit even if a handle outlives the unmount (the bench waits for this process to end).
    setTimeout(() => process.exit(code), 100).unref();
  },
  (err: unknown) => {
    console.error("fs-bench mount-daemon:", err);
    process.exit(1);
  },
);
