/**
 * Text forms of git results as the git CLI prints them: log entries (default and --oneline),
 * dates in git's default format, the commit summary line and the branch list.
 */
import type { BranchList } from "./branches.ts";
import type { LogEntry } from "./history.ts";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** git's default date format (`Thu Jan 1 00:00:00 2026 +0000`) in the identity's own zone. */
export function formatGitDate(timestamp: number, timezoneOffset: number): string {
  // git stores the offset negated (minutes west of UTC): +0200 is -120.
  const offset = -timezoneOffset;
  const d = new Date((timestamp + offset * 60) * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const zone = `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const day = DAYS[d.getUTCDay()] ?? "";
  const month = MONTHS[d.getUTCMonth()] ?? "";
  return `${day} ${month} ${d.getUTCDate()} ${time} ${d.getUTCFullYear()} ${zone}`;
}

/** The first line of a commit message. */
export function subject(message: string): string {
  return message.split("\n", 1)[0] ?? "";
}

/** `git log` text: the default medium format, or one `<short oid> <subject>` line each. */
export function formatLog(entries: LogEntry[], oneline: boolean): string {
  if (oneline) return entries.map((e) => `${e.oid.slice(0, 7)} ${subject(e.message)}\n`).join("");
  return entries
    .map((e) => {
      const body = e.message.replace(/\n+$/, "").split("\n");
      const merge = e.parents.length > 1 ? `Merge: ${e.parents.map((p) => p.slice(0, 7)).join(" ")}\n` : "";
      return (
        `commit ${e.oid}\n${merge}Author: ${e.author.name} <${e.author.email}>\n` +
        `Date:   ${formatGitDate(e.author.timestamp, e.author.timezoneOffset)}\n\n` +
        `${body.map((line) => (line === "" ? "" : `    ${line}`)).join("\n")}\n`
      );
    })
    .join("\n");
}

/** `git branch` text: every branch, the current one starred. */
export function formatBranches(list: BranchList): string {
  return list.branches.map((name) => `${name === list.current ? "*" : " "} ${name}\n`).join("");
}
