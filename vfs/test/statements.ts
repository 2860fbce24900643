/** Counts the statements a piece of vfs work runs, for tests that bound them. */
import type { SqlLike } from "../src/sql.ts";

/** How many statements `fn` runs on `sql`. */
export function countStatements(sql: SqlLike, fn: () => void): number {
  return statementsOf(sql, fn).length;
}

/** The text of each statement `fn` runs on `sql`, in order. */
export function statementsOf(sql: SqlLike, fn: () => void): string[] {
  const queries: string[] = [];
  const exec = sql.exec.bind(sql);
  sql.exec = ((query: string, ...args: never[]) => {
    queries.push(query);
    return exec(query, ...args);
  }) as SqlLike["exec"];
  try {
    fn();
  } finally {
    sql.exec = exec;
  }
  return queries;
}
