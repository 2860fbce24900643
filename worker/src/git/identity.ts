/**
 * Who a commit is by. Like git: explicit arguments first, then GIT_AUTHOR_* / GIT_COMMITTER_*
 * from the environment, then `user.name` / `user.email` of the repository config, then a
 * fixed default (a computer has no login user to guess from).
 */
import { getConfig } from "isomorphic-git";
import type { Repo } from "./repo.ts";

/** An author or committer. `timestamp` is seconds since the epoch (default: now). */
export interface GitIdentity {
  name: string;
  email: string;
  timestamp?: number;
  /** Minutes, with git's sign convention (UTC: 0). */
  timezoneOffset?: number;
}

/** Used when neither arguments, environment nor config name anyone. */
export const DEFAULT_IDENTITY: GitIdentity = { name: "computer", email: "computer@localhost" };

async function configString(repo: Repo, path: string): Promise<string | undefined> {
  const value: unknown = await getConfig({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, path });
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Parses git's date forms `@<seconds> [+-]HHMM` and `<seconds> [+-]HHMM` (as GIT_AUTHOR_DATE). */
function parseGitDate(value: string | undefined): { timestamp: number; timezoneOffset?: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^@?(\d+)(?:\s+([+-])(\d\d)(\d\d))?$/.exec(value.trim());
  if (match === null) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : { timestamp: Math.floor(ms / 1000) };
  }
  const timestamp = Number(match[1]);
  if (match[2] === undefined) return { timestamp };
  // git stores the offset negated: +0200 is -120.
  const minutes = Number(match[3]) * 60 + Number(match[4]);
  return { timestamp, timezoneOffset: match[2] === "+" && minutes !== 0 ? -minutes : minutes };
}

/**
 * The identity for `role`: `given` fields win, then `env` (GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL,
 * GIT_AUTHOR_DATE or the GIT_COMMITTER_ ones), then the config, then DEFAULT_IDENTITY.
 */
export async function resolveIdentity(
  repo: Repo,
  role: "author" | "committer",
  given: Partial<GitIdentity> | undefined,
  env: Record<string, string | undefined>,
  fallback: GitIdentity = DEFAULT_IDENTITY,
): Promise<GitIdentity> {
  const prefix = role === "author" ? "GIT_AUTHOR" : "GIT_COMMITTER";
  const name =
    given?.name ?? env[`${prefix}_NAME`] ?? (await configString(repo, "user.name")) ?? fallback.name;
  const email =
    given?.email ?? env[`${prefix}_EMAIL`] ?? (await configString(repo, "user.email")) ?? fallback.email;
  const identity: GitIdentity = { name, email };
  const date = parseGitDate(env[`${prefix}_DATE`]);
  const timestamp = given?.timestamp ?? date?.timestamp ?? fallback.timestamp;
  if (timestamp !== undefined) identity.timestamp = timestamp;
  const offset = given?.timezoneOffset ?? date?.timezoneOffset ?? fallback.timezoneOffset;
  if (offset !== undefined) identity.timezoneOffset = offset;
  return identity;
}
