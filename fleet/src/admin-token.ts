/**
 * Local secrets for the dev fleet: a random admin token kept in `.computer/admin-token`
 * (0600) and the `KEY=value` env files that hand it to the local Worker.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** A fresh random token: 32 bytes, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Returns the token stored at `path`, creating it (and its folder, 0700) on first use. The file is 0600. */
export function ensureAdminToken(path: string): string {
  if (existsSync(path)) {
    const token = readFileSync(path, "utf8").trim();
    if (token.length > 0) {
      chmodSync(path, 0o600);
      return token;
    }
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const token = generateToken();
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

/** Formats `vars` as dotenv lines. Values are unquoted, so they must be free of whitespace, quotes and `#`. */
function envLines(vars: Readonly<Record<string, string>>): string[] {
  return Object.entries(vars).map(([key, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || /[\s"'`#\\]/.test(value)) {
      throw new Error(`cannot write ${key} to an env file unquoted`);
    }
    return `${key}=${value}`;
  });
}

function writePrivate(path: string, lines: readonly string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** Writes a dotenv-style file of `vars` (0600), the format of `.dev.vars` and `--env-file`. */
export function writeEnvFile(path: string, vars: Readonly<Record<string, string>>): void {
  writePrivate(path, envLines(vars));
}

/** Sets `vars` in the dotenv-style file at `path` (0600), keeping its other lines. */
export function upsertEnvFile(path: string, vars: Readonly<Record<string, string>>): void {
  const keyOf = (line: string) => line.split("=", 1)[0]?.trim() ?? "";
  const kept = existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line.trim().length > 0 && !Object.hasOwn(vars, keyOf(line)))
    : [];
  writePrivate(path, [...kept, ...envLines(vars)]);
}
