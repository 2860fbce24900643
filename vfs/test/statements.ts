/** Counts the statements a piece of vfs work runs, for tests that bound them. */
import type { SqlLike } from "../src/sql.ts";

/** How many statements `fn` runs on `sql`. */
export function countStatements(sql: SqlLike, fn: () => void): number {
  let n = 0;
  const exec = sql.exec.bind(sql);
  sql.exec = ((query: string, ...args: never[]) => {
    n++;
    return exec(query, ...args);
  }) as SqlLike["exec"];
  try {
    fn();
  } finally {
    sql.exec = exec;
  }
  return n;
}
