/**
 * Checking a terminal request (untrusted: it comes over the link): id, size, directory and
 * environment, with the same rules as an exec's.
 */
import { posix } from "node:path";
import { FsError } from "@computer/vfs";
import { validateEnv } from "../exec/env.ts";

/** A checked terminal request. */
export interface TerminalPlan {
  id: string;
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Largest width or height a terminal may have. */
export const MAX_TERMINAL_SIZE = 1000;

function invalid(message: string): FsError {
  return new FsError("EINVAL", "terminal", undefined, message);
}

/** Throws EINVAL unless `cols` and `rows` are whole numbers 1..MAX_TERMINAL_SIZE. */
export function checkSize(cols: unknown, rows: unknown): { cols: number; rows: number } {
  for (const [name, value] of [
    ["cols", cols],
    ["rows", rows],
  ] as const) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TERMINAL_SIZE)
      throw invalid(`${name} must be an integer 1..${MAX_TERMINAL_SIZE}`);
  }
  return { cols: cols as number, rows: rows as number };
}

/** Checks `input` (TerminalSpec-shaped) and resolves its cwd against `defaultCwd`. */
export function planTerminal(input: unknown, defaultCwd: string): TerminalPlan {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw invalid("request must be an object");
  const spec = input as Record<string, unknown>;
  const { id, cwd } = spec;
  if (typeof id !== "string" || !ID.test(id)) throw invalid("id must be 1-128 characters of [A-Za-z0-9_-]");
  if (cwd !== undefined && (typeof cwd !== "string" || cwd === "" || cwd.includes("\0")))
    throw invalid("cwd must be a non-empty string without NUL");
  return {
    id,
    ...checkSize(spec.cols, spec.rows),
    cwd: posix.resolve(defaultCwd, cwd ?? "."),
    env: validateEnv(spec.env),
  };
}
