/**
 * Parsing of the CLI's option values: durations (`1h`, `30m`, `90s` or seconds; via `ms`),
 * byte sizes (`512M`, `1G` or bytes), egress policies, `K=V` pairs and octal modes. Each
 * refuses bad input with a usage error naming the option.
 */
import ms from "ms";
import type { Egress } from "../contract/types.ts";
import { CliError } from "./output.ts";

/** Seconds of `value`: `3600`, `1h`, `7d`. */
export function parseSeconds(value: string, option: string): number {
  const millis = /^\d+$/.test(value) ? Number(value) * 1000 : ms(value as ms.StringValue);
  if (typeof millis !== "number" || !Number.isFinite(millis) || millis < 1000) {
    throw new CliError(
      "usage",
      `${option}: expected a duration like 3600, 90s, 30m, 1h or 7d, got '${value}'`,
    );
  }
  return Math.round(millis / 1000);
}

/** Milliseconds of `value`: `60000`, `10s`, `5m` (a bare number is milliseconds). */
export function parseMillis(value: string, option: string): number {
  const millis = /^\d+$/.test(value) ? Number(value) : ms(value as ms.StringValue);
  if (typeof millis !== "number" || !Number.isFinite(millis) || millis < 1) {
    throw new CliError("usage", `${option}: expected a duration like 60000, 10s or 5m, got '${value}'`);
  }
  return Math.round(millis);
}

const SIZE_UNITS: Record<string, number> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Bytes of `value`: `1073741824`, `512M`, `1G`, `1GiB`. */
export function parseBytes(value: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(value.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? "").toUpperCase()];
  if (match === null || unit === undefined) {
    throw new CliError("usage", `${option}: expected a size like 1073741824, 512M or 1G, got '${value}'`);
  }
  return Math.round(Number(match[1]) * unit);
}

/** An egress policy: `none`, `all`, or hosts separated by commas. */
export function parseEgress(value: string): Egress {
  if (value === "none" || value === "all") return value;
  const hosts = value.split(",").map((h) => h.trim());
  if (hosts.some((h) => h === ""))
    throw new CliError("usage", `--egress: expected none, all or host,host,...`);
  return { allow: hosts };
}

/** `K=V` pairs (repeatable option) as an object. */
export function parseEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at < 1) throw new CliError("usage", `--env: expected K=V, got '${pair}'`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** An octal mode (`755`, `0644`, `4755`). */
export function parseMode(value: string): string {
  if (!/^0?[0-7]{3,4}$/.test(value))
    throw new CliError("usage", `expected an octal mode like 755 or 0644, got '${value}'`);
  return value.padStart(4, "0").slice(-4);
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** One shell word for `sh -c`: kept as it is when it needs no quoting, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line of `exec`'s words: one word is taken as a whole command line (so
 * `'ls | wc -l'` keeps its pipe); several are quoted and joined, as a shell would pass them.
 */
export function commandLine(words: string[]): string {
  if (words.length === 1) return words[0] ?? "";
  return words.map(shellQuote).join(" ");
}
