/**
 * computerd's counters as its fence events carry them (computerd/src/commands/serve.ts: totals
 * since the daemon started: FUSE requests by type, the mirror's SQL, round trips to the Durable
 * Object and their bytes), and the difference of two as the flat names the reports show
 * (`fuse`, `fuse.<op>`, `sql`, `syncCalls`, `sync.<method>`, `syncChanges`, `syncSentBytes`, ...).
 */
import { type SyncCounters, syncMetrics } from "@computer/vfs/sync";

export interface ComputerdCounters {
  fuse: Record<string, number>;
  sql: { statements: number };
  rpc: SyncCounters;
}

export function isComputerdCounters(value: unknown): value is ComputerdCounters {
  const c = value as Partial<ComputerdCounters> | undefined;
  return typeof c?.fuse === "object" && typeof c?.sql?.statements === "number" && typeof c?.rpc === "object";
}

function flat(c: ComputerdCounters): Record<string, number> {
  const out: Record<string, number> = { sql: c.sql.statements, ...syncMetrics(c.rpc) };
  let total = 0;
  for (const [op, n] of Object.entries(c.fuse)) {
    out[`fuse.${op}`] = n;
    total += n;
  }
  out.fuse = total;
  return out;
}

/** What computerd did between two fence events (`before` undefined: since it started). */
export function computerdDelta(
  before: ComputerdCounters | undefined,
  after: ComputerdCounters,
): Record<string, number> {
  const from = before ? flat(before) : {};
  const out: Record<string, number> = {};
  // Zeros stay: a median over the repetitions must count the ones where nothing happened.
  for (const [name, n] of Object.entries(flat(after))) out[name] = n - (from[name] ?? 0);
  return out;
}
