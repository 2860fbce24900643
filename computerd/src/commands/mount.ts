/**
 * `computerd mount --state DIR --mount-point DIR [--backend fuse3|none]`: serves
 * the mirror in DIR until SIGTERM/SIGINT, then flushes, unmounts and closes.
 * Prints one JSON line per lifecycle event on stdout ({"event":"mounted"},
 * {"event":"unmounted", counters}) for supervisors and tests.
 */
import { parseArgs } from "node:util";
import type { Command } from "../main.ts";
import { startMirrorGc } from "../mirror/mirror-gc.ts";
import { openMirror } from "../mirror/open-mirror.ts";
import { type MountBackend, openMount } from "../mount/backend.ts";

export const USAGE = `usage: computerd mount --state DIR --mount-point DIR [options]

  --state DIR               the mirror's state directory (created if missing)
  --mount-point DIR         where to mount (not needed with --backend none)
  --backend NAME            fuse3 (computerd's own libfuse3 addon, the default), none
  --attr-timeout SECONDS    how long the kernel caches attributes
  --entry-timeout SECONDS   how long the kernel caches names
  --negative-timeout SECONDS  how long the kernel caches a missing name
  --page-cache auto|keep    keep: the page cache stays valid across opens
  --gc-interval SECONDS     how often the mirror's GC runs (default 60)
  --gc-window SECONDS       how old an unused blob must be before the GC takes it (default 600)
  --debug                   libfuse's debug output
  --help                    this text`;

/** The backend named by --backend; computerd's own libfuse3 addon when none is named. */
function backendOf(value: string | undefined): MountBackend {
  if (value === undefined || value === "fuse3") return "fuse3";
  if (value === "none") return value;
  throw new Error(`unknown backend "${value}" (fuse3 | none)`);
}

/** The parsed flags, or the exit code when there is nothing to mount (--help, a bad option). */
function flags(args: string[]) {
  try {
    return parseFlags(args);
  } catch (err) {
    console.error(`computerd mount: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
}

function parseFlags(args: string[]) {
  return parseArgs({
    args,
    options: {
      state: { type: "string" },
      "mount-point": { type: "string" },
      backend: { type: "string" },
      "attr-timeout": { type: "string" },
      "entry-timeout": { type: "string" },
      "negative-timeout": { type: "string" },
      "page-cache": { type: "string" },
      "gc-interval": { type: "string" },
      "gc-window": { type: "string" },
      debug: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  }).values;
}

async function run(args: string[]): Promise<number> {
  const values = flags(args);
  if (typeof values === "number") return values;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const stateDir = values.state;
  const mountPoint = values["mount-point"];
  const backend = backendOf(values.backend);
  if (!stateDir || (backend !== "none" && !mountPoint)) {
    console.error(USAGE);
    return 2;
  }
  const seconds = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${flag} wants a number of seconds`);
    return n;
  };
  const timeouts = {
    attrTimeout: seconds("attr-timeout", values["attr-timeout"]),
    entryTimeout: seconds("entry-timeout", values["entry-timeout"]),
    negativeTimeout: seconds("negative-timeout", values["negative-timeout"]),
  };
  const mirror = openMirror(stateDir);
  const mount = await openMount({
    backend,
    mirror,
    mountPoint,
    fuse: {
      debug: values.debug ?? false,
      pageCache: values["page-cache"] === "keep" ? "keep" : "auto",
      ...(timeouts.attrTimeout === undefined ? {} : { attrTimeout: timeouts.attrTimeout }),
      ...(timeouts.entryTimeout === undefined ? {} : { entryTimeout: timeouts.entryTimeout }),
      ...(timeouts.negativeTimeout === undefined ? {} : { negativeTimeout: timeouts.negativeTimeout }),
    },
  });
  console.log(
    JSON.stringify({
      event: "mounted",
      backend,
      mountPoint: mount.mountPoint ?? null,
      pid: process.pid,
      wakeHere: mount.wakeHere ?? null,
    }),
  );

  const gcInterval = seconds("gc-interval", values["gc-interval"]);
  const gcWindow = seconds("gc-window", values["gc-window"]);
  const gc = startMirrorGc(mirror, {
    log: (message, err) => console.error(`computerd: ${message}`, err),
    ...(gcInterval === undefined ? {} : { intervalMs: gcInterval * 1000 }),
    ...(gcWindow === undefined ? {} : { windowMs: gcWindow * 1000 }),
  });
  const keepAlive = setInterval(() => {}, 1 << 30);
  const signal = await new Promise<string>((resolve) => {
    for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(name, () => resolve(name));
  });
  clearInterval(keepAlive);
  gc.stop();
  await mount.unmount();
  const sql = { ...mirror.sql.counters };
  mirror.close();
  console.log(JSON.stringify({ event: "unmounted", signal, counters: mount.counters, sql }));
  return 0;
}

/** The mount command. */
export const mountCommand: Command = { summary: "serve a mirror at a mount point until SIGTERM", run };
