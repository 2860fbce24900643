/**
 * File modes on the wire: octal strings ("0644", "4755") in and out, plus plain integers in
 * JSON input. Only permission bits and setuid/setgid/sticky (0o7777) are accepted.
 */
import { ApiError } from "./errors.ts";

const OCTAL = /^(?:0o?)?([0-7]{1,4})$/i;

/** Parses an octal string ("644", "0644", "0o644") or an integer into mode bits. */
export function parseMode(value: unknown, field = "mode"): number {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0o7777) return value;
  if (typeof value === "string") {
    const digits = OCTAL.exec(value)?.[1];
    if (digits !== undefined) return Number.parseInt(digits, 8);
  }
  throw new ApiError("EINVAL", `'${field}' must be octal permission bits like "0644"`);
}

/** Formats mode bits as a 4-digit octal string ("0644"). */
export function formatMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}
