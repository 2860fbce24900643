/**
 * How the CLI answers: JSON on stdout with `--json` (stable shapes, docs/CLI.md), text for
 * people otherwise, and every error as one line on stderr with a documented exit code.
 */
import { isComputerError } from "../error.ts";

/** Exit codes of the CLI (docs/CLI.md); `exec` exits with the command's own code instead. */
export const EXIT = {
  ok: 0,
  /** The API refused the request (any other code). */
  error: 1,
  /** Bad arguments or no configuration. */
  usage: 2,
  /** ENOENT: no such computer, file or exec. */
  notFound: 3,
  /** EUNAUTHORIZED or EFORBIDDEN: the token is missing, wrong, expired, revoked or read-only. */
  denied: 4,
  /** ECONNREFUSED or EPROTO: the API could not be reached or answered something else. */
  unreachable: 5,
  /** The remote command ran past its timeout. */
  timeout: 124,
  /** Ctrl-C: the remote command was killed. */
  interrupted: 130,
  /** The remote command was killed by someone else. */
  killed: 137,
} as const;

/** The kinds of CLI error without an API code. */
export type CliErrorKind = "usage" | "local";

/** An error of the CLI itself (bad arguments, a local file): printed as one line, exit 2 or 1. */
export class CliError extends Error {
  readonly kind: CliErrorKind;

  constructor(kind: CliErrorKind, message: string) {
    super(message);
    this.name = "CliError";
    this.kind = kind;
  }
}

/** Strips what the line adds itself: a leading `CODE: ` and Node-style `, syscall '/path'`. */
function bareMessage(code: string, message: string): string {
  let text = message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
  text = text.replace(/, \w+ '[^']*'$/, "");
  return text;
}

/** The one line and exit code of an error. */
export function describeError(err: unknown): { line: string; exit: number } {
  if (err instanceof CliError) {
    return { line: `computer: ${err.message}`, exit: err.kind === "usage" ? EXIT.usage : EXIT.error };
  }
  if (isComputerError(err)) {
    const path = err.path === undefined ? "" : `: ${err.path.replace(/^\//, "") || "/"}`;
    const line = `computer: ${err.code}: ${bareMessage(err.code, err.message)}${path}`;
    switch (err.code) {
      case "ENOENT":
        return { line, exit: EXIT.notFound };
      case "EUNAUTHORIZED":
      case "EFORBIDDEN":
        return { line, exit: EXIT.denied };
      case "ECONNREFUSED":
      case "EPROTO":
        return { line, exit: EXIT.unreachable };
      default:
        return { line, exit: EXIT.error };
    }
  }
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && err instanceof Error) {
    return { line: `computer: ${code}: ${err.message.replace(`${code}: `, "")}`, exit: EXIT.error };
  }
  return { line: `computer: ${err instanceof Error ? err.message : String(err)}`, exit: EXIT.error };
}

/** Answers `value` as JSON with `--json`, else `text` (a line for people). */
export function answer(json: boolean, value: unknown, text: string): void {
  if (json) printJson(value);
  else process.stdout.write(`${text}\n`);
}

/** Prints `value` as one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints rows as aligned columns (no header when `header` is empty). */
export function printTable(header: string[], rows: string[][]): void {
  const all = header.length > 0 ? [header, ...rows] : rows;
  const widths = all[0]?.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length))) ?? [];
  for (const row of all) {
    process.stdout.write(
      `${row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd()}\n`,
    );
  }
}

/** Bytes for people: `1.5 MiB`. */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${units[unit]}`;
}
