/**
 * `npm run bench:space`: do the mirror and the Durable Object give space back? The mirror:
 * `computerd mount` (its own CLI, the mirror GC on a 1 s timer with no window) on the real disk:
 * a base file, then `--mib` MiB of random data written with fsync and deleted; what the mirror
 * stores (database and WAL) is sampled until it is back within 10% of where it started or
 * `--timeout` passes. The DO: the same size through the HTTP API into a DO in workerd, deleted,
 * its GC run past the window (space-do.ts). Reports the start, the peak and the end of each,
 * and how long the GC took to give the space back; JSON in `--out`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { measureDoSpace } from "./space-do.ts";

const MAIN = fileURLToPath(new URL("../../computerd/src/main.ts", import.meta.url));
const DEFAULT_OUT = fileURLToPath(new URL("../results/", import.meta.url));

const USAGE = `Usage: npm run bench:space -- [options]

  --mib N           MiB written and deleted (default 1024)
  --timeout S       how long to wait for the space to come back (default 120)
  --disk-dir DIR    where the mount's state and mount point go (default /var/tmp)
  --no-do           only the mirror (leave out the Durable Object's half)
  --out DIR         where the JSON document goes (default bench/results)
  --help            this text`;

/**
 * What the mirror stores: its database and WAL, as fs-bench's storedBytes. The WAL index
 * (-shm, shared memory sized by the largest WAL since open) is reported apart: it holds no
 * data and goes back only when the mirror is reopened.
 */
function stateBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => !name.endsWith("-shm"))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

/** Starts `computerd mount` with a fast GC; resolves once it is mounted. */
async function startMount(state: string, mnt: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [MAIN, "mount", "--state", state, "--mount-point", mnt, "--gc-interval", "1", "--gc-window", "0"],
    { cwd: "/", stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) if (line.includes('"mounted"')) return child;
  throw new Error("computerd mount exited before it mounted");
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      mib: { type: "string", default: "1024" },
      timeout: { type: "string", default: "120" },
      "disk-dir": { type: "string", default: "/var/tmp" },
      do: { type: "boolean", default: true },
      out: { type: "string", default: DEFAULT_OUT },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowNegative: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const size = Number(values.mib);
  const timeoutMs = Number(values.timeout) * 1000;
  // The DO's half first: its workerd run must not overlap the mount's GC timings.
  const durableObject = values.do ? measureDoSpace(size) : undefined;
  if (durableObject) {
    console.log(
      [
        `Durable Object: ${size} MiB through the API (${(durableObject.writeMs / 1000).toFixed(1)} s) and deleted`,
        `DO SQLite: ${mib(durableObject.start)} at the start, ${mib(durableObject.peak)} at the peak, ${mib(durableObject.withinWindow)} after the delete inside the GC window, ${mib(durableObject.end)} after the GC (${(durableObject.end / durableObject.start).toFixed(3)}× the start; GC ${durableObject.gcMs} ms)`,
        durableObject.passed ? "DO: back within 10% after the GC" : "DO: the space test FAILED (see above)",
      ].join("\n"),
    );
  }
  const root = mkdtempSync(join(values["disk-dir"], "space-bench-"));
  const state = join(root, "state");
  const mnt = join(root, "mnt");
  const child = await startMount(state, mnt);
  const sh = (script: string) => execFileSync("bash", ["-c", script], { cwd: mnt, stdio: "ignore" });
  try {
    sh("dd if=/dev/urandom of=base bs=1M count=8 conv=fsync status=none");
    // Let the first GC runs settle (they vacuum what the mirror's creation left free).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const start = stateBytes(state);
    const writeStarted = performance.now();
    sh(`dd if=/dev/urandom of=big bs=1M count=${size} conv=fsync status=none`);
    const writeMs = performance.now() - writeStarted;
    const peak = stateBytes(state);
    sh("rm big");
    const removed = performance.now();
    let end = stateBytes(state);
    while (end > start * 1.1 && performance.now() - removed < timeoutMs) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      end = stateBytes(state);
    }
    const reclaimMs = performance.now() - removed;
    const files = Object.fromEntries(
      readdirSync(state).map((name) => [name, statSync(join(state, name)).size]),
    );
    const back = end <= start * 1.1;
    const document = {
      schema: "computer.space-bench/1",
      finishedAt: new Date().toISOString(),
      host: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "", node: process.version },
      options: { mib: size, timeoutMs, diskDir: values["disk-dir"] },
      stateBytes: { start, peak, end, files },
      writeMs,
      reclaimMs,
      back,
      durableObject,
    };
    console.log(
      [
        `written and deleted: ${size} MiB (dd from /dev/urandom, fsync; ${(writeMs / 1000).toFixed(1)} s)`,
        `mirror database + WAL: ${mib(start)} at the start, ${mib(peak)} at the peak, ${mib(end)} at the end (${(end / start).toFixed(3)}× the start)`,
        `WAL index (-shm, no data, sized by the largest WAL since open): ${mib(files["mirror.sqlite-shm"] ?? 0)}`,
        back
          ? `back within 10% ${(reclaimMs / 1000).toFixed(1)} s after the delete (GC every 1 s, no window)`
          : `NOT back within 10% after ${(timeoutMs / 1000).toFixed(0)} s`,
      ].join("\n"),
    );
    mkdirSync(values.out, { recursive: true });
    const out = join(values.out, `space-${document.finishedAt.replaceAll(":", "-")}.json`);
    writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
    process.stderr.write(`space-bench: wrote ${out}\n`);
    return back && (durableObject?.passed ?? true) ? 0 : 1;
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
