/**
 * The environment a command sees: an allowlist of the daemon's own variables plus the
 * caller's. Nothing else of the daemon's environment (its secret above all) reaches a command.
 */
import { FsError } from "@computer/vfs";

/** Daemon variables a command inherits when set. */
export const ENV_ALLOWLIST = [
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
] as const;

/** Used when the daemon itself has no PATH, and always inside the bubblewrap sandbox. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** HOME of a sandboxed command (the host's home folders are not in the sandbox). */
export const SANDBOX_HOME = "/workspace";

/** HOME of a command over the image's root filesystem (root's home there, rootfs-sandbox.ts). */
export const ROOTFS_HOME = "/root";

/**
 * Daemon variables a sandboxed command inherits: the locale, the terminal and the time zone.
 * Nothing that names a host path (PATH, HOME, TMPDIR, SHELL) or a host account (USER, LOGNAME).
 */
const SANDBOX_ALLOWLIST = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TZ"] as const;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Environment variables a caller may never set: they would change how the wrapper itself runs. */
const RESERVED = new Set(["COMPUTERD_SECRET"]);

/**
 * The allowlisted part of `source` (normally `process.env`, read once at start), with PATH
 * defaulted. Take this snapshot before anything sensitive could be added to the environment.
 */
export function baseEnv(source: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ENV_ALLOWLIST) {
    const value = source[name];
    if (typeof value === "string") env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  return env;
}

/**
 * The base environment of a sandboxed command: SANDBOX_ALLOWLIST from `source`, the fixed
 * DEFAULT_PATH and HOME (/workspace, or root's home over the image's root filesystem),
 * whatever the daemon's own PATH and HOME are.
 */
export function sandboxBaseEnv(
  source: Record<string, string | undefined>,
  home = SANDBOX_HOME,
): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_PATH, HOME: home };
  for (const name of SANDBOX_ALLOWLIST) {
    const value = source[name];
    if (typeof value === "string") env[name] = value;
  }
  return env;
}

/**
 * Checks a caller's `env` (untrusted JSON): an object of string values whose names are
 * shell identifiers, without NUL bytes. Throws FsError EINVAL otherwise.
 */
export function validateEnv(env: unknown): Record<string, string> {
  if (env === undefined || env === null) return {};
  if (typeof env !== "object" || Array.isArray(env))
    throw new FsError("EINVAL", "exec", undefined, "env must be an object");
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!NAME.test(name))
      throw new FsError(
        "EINVAL",
        "exec",
        undefined,
        `invalid environment variable name: ${JSON.stringify(name)}`,
      );
    if (RESERVED.has(name))
      throw new FsError("EINVAL", "exec", undefined, `reserved environment variable: ${name}`);
    if (typeof value !== "string")
      throw new FsError("EINVAL", "exec", undefined, `environment variable ${name} must be a string`);
    if (value.includes("\0"))
      throw new FsError("EINVAL", "exec", undefined, `environment variable ${name} contains NUL`);
    out[name] = value;
  }
  return out;
}

/** The environment of one command: base, then the caller's variables, then PWD. */
export function execEnv(
  base: Record<string, string>,
  extra: Record<string, string>,
  cwd: string,
): Record<string, string> {
  return { ...base, ...extra, PWD: cwd };
}
