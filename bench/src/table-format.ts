/** Plain-text tables and number formats shared by the benchmarks' reports. */

/** Milliseconds with a precision that suits their size ("-" when not finite). */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "-";
  return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** `ms / baseline` as "1.23x" ("-" without a positive baseline). */
export function formatRatio(ms: number, baseline: number | undefined): string {
  if (baseline === undefined || !(baseline > 0)) return "-";
  return `${(ms / baseline).toFixed(ms / baseline < 10 ? 2 : 1)}x`;
}

/** A table with a header rule; the first `leftColumns` columns are left-aligned, the rest right-aligned. */
export function renderTable(
  header: readonly string[],
  rows: readonly string[][],
  leftColumns: number,
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < leftColumns ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
