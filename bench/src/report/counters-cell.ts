/**
 * The counters beside a row's times as one short cell (FUSE requests by type, SQL statements,
 * round trips to the Durable Object and their bytes, the DO's statements), for the terminal
 * table, the Markdown and the HTML. No imports: fs-bench prints it in the computerd image too.
 */

const count = new Intl.NumberFormat("en-US");

function bytes(n: number): string {
  if (Math.abs(n) < 1024) return `${n} B`;
  if (Math.abs(n) < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1 << 20)).toFixed(1)} MiB`;
}

/** What the counters cell says, for the reports' legends. */
export const COUNTERS_LEGEND =
  "FUSE: requests the mount served by type (the mount: during the timed part; the fleet: computerd's, from the fence before the exec to the one after); " +
  "SQL: the mirror's statements (until the fence); stored: bytes the mirror grew by; CPU ms: the mount daemon's CPU time, all its threads (until the fence); RPC: computerd's round trips to the Durable Object, " +
  "with the changes and blob bytes they sent and got; DO SQL: the Durable Object's statements for the exec; fsCalls, fsOps: the shell/js runtimes' round trips to the filesystem.";

/** The counters shown under a short label, in this order (the JSON keeps every one). */
const LABELS: readonly [string, string][] = [
  ["sql", "SQL"],
  ["storedBytes", "stored"],
  ["cpuMs", "CPU ms"],
  ["syncCalls", "RPC"],
  ["syncChanges", "changes"],
  ["syncSentBytes", "sent"],
  ["syncReturnedBytes", "got"],
  ["doSql", "DO SQL"],
];

/** Per-method splits and the DO's view of the same round trips: in the JSON, not in the cell. */
function detailOnly(name: string): boolean {
  return name.includes(".") || (name.startsWith("doSync") && name !== "doSql");
}

/**
 * "FUSE 2,010 (lookup 1,000, create 1,000, ...), SQL 1,203, stored +4.0 KiB, RPC 12, ..., DO SQL
 * 480", then the other numbers (a fleet scenario's commandMs, fsCalls, ...); zeros left out.
 */
export function countersCell(counters: Record<string, number>): string {
  const parts: string[] = [];
  const value = (name: string, n: number) =>
    name.endsWith("Bytes") ? bytes(Math.round(n)) : count.format(Math.round(n * 10) / 10);
  if (counters.fuse !== undefined) {
    const ops = Object.entries(counters)
      .filter(([name, n]) => name.startsWith("fuse.") && Math.round(n) > 0)
      .sort((a, b) => b[1] - a[1]);
    const top = ops.slice(0, 4).map(([name, n]) => `${name.slice(5)} ${count.format(Math.round(n))}`);
    parts.push(
      `FUSE ${count.format(Math.round(counters.fuse))}${top.length ? ` (${top.join(", ")}${ops.length > 4 ? ", ..." : ""})` : ""}`,
    );
  }
  const labelled = new Set(["fuse", ...LABELS.map(([name]) => name)]);
  for (const [name, label] of LABELS) {
    const n = counters[name];
    if (n !== undefined && (Math.round(n) !== 0 || name === "sql")) parts.push(`${label} ${value(name, n)}`);
  }
  for (const [name, n] of Object.entries(counters)) {
    if (labelled.has(name) || name.startsWith("fuse.") || detailOnly(name) || Math.round(n * 10) === 0)
      continue;
    parts.push(`${name} ${value(name, n)}`);
  }
  return parts.join(", ");
}
