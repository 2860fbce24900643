/**
 * Many rows in one statement: the rows go as one JSON parameter that the statement reads with
 * `json_each`, so a batch costs a statement or two whatever its size (and the Durable Object's
 * 100-parameter limit never binds). A statement that takes columns out of each row reads the rows
 * with `jsonb_each`, which hands each row over as binary JSON: `json_each` hands it over as
 * text, which every `json_extract` of a column parses again (2.6x the time for 4,000 rows of
 * sixteen columns; docs/BENCH.md, "Upload batches of 4,000 changes").
 */
import type { Context } from "./context.ts";
import type { SqlValue } from "./sql.ts";

/** Rows per JSON parameter (bounds one statement's argument). */
export const ROWS_PER_STATEMENT = 1000;

/** Runs `statement` with `rows` as its last parameter (JSON), a slice at a time, after `leading`. */
export function execRows(
  ctx: Context,
  statement: string,
  rows: readonly unknown[],
  ...leading: SqlValue[]
): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const slice = JSON.stringify(rows.slice(i, i + ROWS_PER_STATEMENT));
    out.push(...ctx.store.sql.exec(statement, ...leading, slice));
  }
  return out;
}
