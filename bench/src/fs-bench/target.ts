/**
 * The three places fs-bench runs its scenarios: the computerd mount (mount-target.ts), tmpfs
 * and a real disk (here). A target hands out a root directory for fresh per-repetition
 * directories, settles after writes (untimed) and, for the mount, reports counters.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Target ids, in report order. */
export const TARGET_IDS = ["computerd", "tmpfs", "disk"] as const;
export type TargetId = (typeof TARGET_IDS)[number];

/** Deterministic counters of the mount: FUSE operations by name and the mirror's SQL. */
export interface MountCounters {
  fuse: Record<string, number>;
  sql: { statements: number; operations: number; commits: number };
  /** Bytes of the mirror's files (database and WAL) on disk: what the writes cost in storage. */
  storedBytes?: number;
  /**
   * CPU time of the mount's daemon, all its threads, user and system, in ms: what the mount
   * costs the machine, steadier than wall times on a machine whose speed moves.
   */
  cpuMs?: number;
}

/** What settling did. */
export interface Settled {
  ms: number;
  /** The mount's counters once settled (when the target can tell). */
  counters?: MountCounters;
}

/** A place to run scenarios. */
export interface FsTarget {
  readonly id: TargetId;
  /** Human description, e.g. "tmpfs (/dev/shm)". */
  readonly name: string;
  /** Parent of the per-repetition directories (exists until stop). */
  readonly root: string;
  /** Counters now, if the target has them. */
  counters(): Promise<MountCounters | undefined>;
  /**
   * Untimed, after setup and after the timed part: makes what was written settle, so the next
   * step does not pay for it. The mount: the fence (every write stored in the mirror). A disk
   * or tmpfs: syncfs(2).
   */
  settle(dir: string): Promise<Settled>;
  /** Facts for the report. */
  notes(): Record<string, unknown>;
  /** Removes everything the target created. Safe to call more than once. */
  stop(): Promise<void>;
}

/** syncfs(2) on the filesystem holding `dir` (coreutils `sync -f`). */
export function syncfs(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("sync", ["-f", dir], (err) => (err ? reject(err) : resolve()));
  });
}

/** A plain directory target: tmpfs or disk, under `parent` (e.g. /dev/shm, /var/tmp). */
export function directoryTarget(id: "tmpfs" | "disk", parent: string): FsTarget {
  const root = mkdtempSync(join(parent, `computer-fs-bench-${id}-`));
  let stopped = false;
  return {
    id,
    name: `${id} (${parent})`,
    root,
    async counters() {
      return undefined;
    },
    async settle(dir) {
      const started = performance.now();
      await syncfs(dir);
      return { ms: performance.now() - started };
    },
    notes: () => ({ parent }),
    async stop() {
      if (stopped) return;
      stopped = true;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** `after - before`, per counter; zero counts are left out. */
export function counterDelta(before: MountCounters, after: MountCounters): MountCounters {
  const fuse: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.fuse)) {
    const d = n - (before.fuse[op] ?? 0);
    if (d !== 0) fuse[op] = d;
  }
  return {
    fuse,
    sql: {
      statements: after.sql.statements - before.sql.statements,
      operations: after.sql.operations - before.sql.operations,
      commits: after.sql.commits - before.sql.commits,
    },
    ...(after.storedBytes !== undefined && before.storedBytes !== undefined
      ? { storedBytes: after.storedBytes - before.storedBytes }
      : {}),
    ...(after.cpuMs !== undefined && before.cpuMs !== undefined ? { cpuMs: after.cpuMs - before.cpuMs } : {}),
  };
}

/** Sum of the FUSE operation counts. */
export function fuseTotal(counters: MountCounters): number {
  return Object.values(counters.fuse).reduce((a, b) => a + b, 0);
}
