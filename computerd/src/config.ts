/**
 * computerd's configuration: one table of options, each settable by flag or environment
 * variable (the flag wins), with its default and help line. `computerd serve --help` and
 * the README are written from the same table.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

/** The daemon's settings. */
export interface Config {
  host: string;
  port: number;
  mountPoint: string;
  /**
   * `fuse3` (default): the computer is FUSE-mounted at mountPoint through computerd's own
   * libfuse3 addon (docs/mount.md); `none`: no mount (tests, hosts without /dev/fuse).
   */
  mountBackend: "fuse3" | "none";
  stateDir: string;
  /** The bearer secret shared with the Durable Object (never logged, never given to commands). */
  secret: string;
  execOutputCap: number;
  execTimeoutMs: number;
  execMaxTimeoutMs: number;
  execKillGraceMs: number;
  execSandbox: "none" | "bwrap";
  egress: "none" | "all";
  /**
   * With egress none: the hosts (`host`, `*.host`, `host:port`, comma-separated) commands may
   * reach through the daemon's egress proxy, their network namespace's one way out ("" = none).
   */
  egressAllow: string;
  /**
   * With bwrap, when the daemon is root: the host user and group commands run as; with
   * sandboxRoot, the host id that is root inside (ids up to +65535 are the computer's).
   */
  sandboxUid: number;
  /** With bwrap as root: the root filesystem commands run over, as root of a user namespace ("" = the host's system folders). */
  sandboxRoot: string;
  /** Directory for per-exec log files; "" = keep logs in memory only. */
  execLogDir: string;
  execRetain: number;
  /** Pause between background uploads while a command writes. */
  uploadIntervalMs: number;
  /**
   * A link URL to dial as soon as the daemon listens, as `POST /connect {base}` would make it
   * ("" = wait for /connect): computerd host passes the Durable Object's on a computer's start.
   */
  dialBack: string;
}

type Kind = "string" | "int" | "choice";

interface OptionSpec {
  key: Exclude<keyof Config, "secret">;
  flag: string;
  env: string;
  kind: Kind;
  default: string;
  choices?: readonly string[];
  help: string;
}

/** Every option but the secret, in help order. */
export const OPTIONS: readonly OptionSpec[] = [
  {
    key: "host",
    flag: "host",
    env: "COMPUTERD_HOST",
    kind: "string",
    default: "0.0.0.0",
    help: "address the HTTP server listens on",
  },
  {
    key: "port",
    flag: "port",
    env: "COMPUTERD_PORT",
    kind: "int",
    default: "8080",
    help: "port the HTTP server listens on (0: any free port)",
  },
  {
    key: "mountPoint",
    flag: "mount-point",
    env: "MOUNT_POINT",
    kind: "string",
    default: "/workspace",
    help: "where the computer is mounted; commands start here",
  },
  {
    key: "mountBackend",
    flag: "mount-backend",
    env: "MOUNT_BACKEND",
    kind: "choice",
    choices: ["fuse3", "none"],
    default: "fuse3",
    help: "fuse3: mount the computer at the mount point with computerd's own libfuse3 addon (npm run build:native -w computerd); none: no mount (commands see a plain folder)",
  },
  {
    key: "stateDir",
    flag: "state-dir",
    env: "STATE_DIR",
    kind: "string",
    default: "/var/lib/computerd",
    help: "the mirror database and other daemon state",
  },
  {
    key: "execOutputCap",
    flag: "exec-output-cap",
    env: "EXEC_OUTPUT_CAP",
    kind: "int",
    default: String(1024 * 1024),
    help: "output bytes kept per exec (stdout+stderr); the rest is dropped, with a marker",
  },
  {
    key: "execTimeoutMs",
    flag: "exec-timeout-ms",
    env: "EXEC_TIMEOUT_MS",
    kind: "int",
    default: "300000",
    help: "timeout of an exec that names none",
  },
  {
    key: "execMaxTimeoutMs",
    flag: "exec-max-timeout-ms",
    env: "EXEC_MAX_TIMEOUT_MS",
    kind: "int",
    default: "3600000",
    help: "longest timeout an exec may ask for",
  },
  {
    key: "execKillGraceMs",
    flag: "exec-kill-grace-ms",
    env: "EXEC_KILL_GRACE_MS",
    kind: "int",
    default: "2000",
    help: "after SIGTERM on timeout, SIGKILL follows this much later",
  },
  {
    key: "execSandbox",
    flag: "exec-sandbox",
    env: "EXEC_SANDBOX",
    kind: "choice",
    choices: ["none", "bwrap"],
    default: "none",
    help: "none: run as the daemon's user; bwrap: bubblewrap sandbox, mount at /workspace",
  },
  {
    key: "egress",
    flag: "egress",
    env: "EGRESS",
    kind: "choice",
    choices: ["none", "all"],
    default: "none",
    help: "with bwrap: none = own network namespace (loopback only), all = host network",
  },
  {
    key: "egressAllow",
    flag: "egress-allow",
    env: "EGRESS_ALLOW",
    kind: "string",
    default: "",
    help: "with egress none: comma-separated hosts (host, *.host, host:port) commands reach through the egress proxy at 127.0.0.1:3128 (HTTPS_PROXY), in a network namespace with no other way out",
  },
  {
    key: "sandboxUid",
    flag: "sandbox-uid",
    env: "SANDBOX_UID",
    kind: "int",
    default: "65534",
    help: "with bwrap as root: host user and group commands run as (not root, not shared); with --sandbox-root, the host id of root inside",
  },
  {
    key: "sandboxRoot",
    flag: "sandbox-root",
    env: "SANDBOX_ROOT",
    kind: "string",
    default: "",
    help: "with bwrap as root: run commands as root of a user namespace over this root filesystem (empty: the host's system folders, as an unprivileged user)",
  },
  {
    key: "execLogDir",
    flag: "exec-log-dir",
    env: "EXEC_LOG_DIR",
    kind: "string",
    default: "",
    help: "directory for per-exec log files (empty: memory only)",
  },
  {
    key: "execRetain",
    flag: "exec-retain",
    env: "EXEC_RETAIN",
    kind: "int",
    default: "64",
    help: "finished execs kept in memory for re-attach",
  },
  {
    key: "uploadIntervalMs",
    flag: "upload-interval-ms",
    env: "UPLOAD_INTERVAL_MS",
    kind: "int",
    default: "150",
    help: "while a command runs, its writes are uploaded to the Durable Object this often",
  },
  {
    key: "dialBack",
    flag: "dial-back",
    env: "DIAL_BACK",
    kind: "string",
    default: "",
    help: "the Durable Object's link URL (http, https, ws or wss) to dial as soon as the daemon listens, as POST /connect {base} would (empty: wait for /connect)",
  },
];

/** A configuration mistake, reported to the operator as is. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** The shortest secret accepted: anything shorter is a misconfiguration, not a secret. */
export const MIN_SECRET_LENGTH = 16;

/** `computerd serve --help`. */
export function helpText(): string {
  const lines = [
    "usage: computerd serve [options]",
    "",
    "Runs the daemon's HTTP server (exec, health, connect). Every option can also be set by",
    "its environment variable; a flag wins over the environment.",
    "",
  ];
  const row = (left: string, right: string) => lines.push(`${left.padEnd(36)}${right}`);
  for (const option of OPTIONS) {
    const value = option.choices ? option.choices.join("|") : option.kind === "int" ? "N" : "VALUE";
    row(`  --${option.flag} ${value}`, `${option.env}, default ${JSON.stringify(option.default)}`);
    row("", option.help);
  }
  row("  --secret-file PATH", "COMPUTERD_SECRET_FILE");
  row("", "file holding the bearer secret (or set COMPUTERD_SECRET itself);");
  row("", `required, at least ${MIN_SECRET_LENGTH} characters; removed from the environment at start`);
  row("  --help", "this text");
  return lines.join("\n");
}

function convert(option: OptionSpec, raw: string): string | number {
  if (option.kind === "int") {
    if (!/^\d+$/.test(raw.trim()))
      throw new ConfigError(
        `--${option.flag} (${option.env}) must be a whole number, got ${JSON.stringify(raw)}`,
      );
    return Number(raw);
  }
  if (option.choices && !option.choices.includes(raw)) {
    throw new ConfigError(
      `--${option.flag} (${option.env}) must be one of ${option.choices.join(", ")}, got ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/**
 * Reads the secret from COMPUTERD_SECRET or the secret file and DELETES COMPUTERD_SECRET and
 * COMPUTERD_SECRET_FILE from `env` (pass `process.env`), so neither the daemon's children nor
 * a later reader of its environment find it. (The kernel's copy of the initial environment,
 * /proc/PID/environ, is not rewritten: prefer the file, and keep commands out of the daemon's
 * pid namespace, as the bubblewrap sandbox does.)
 */
export function takeSecret(env: Record<string, string | undefined>, secretFile?: string): string {
  const file = secretFile ?? env.COMPUTERD_SECRET_FILE;
  let secret = env.COMPUTERD_SECRET;
  delete env.COMPUTERD_SECRET;
  delete env.COMPUTERD_SECRET_FILE;
  if (file) {
    try {
      secret = readFileSync(file, "utf8").trim();
    } catch (error) {
      throw new ConfigError(`cannot read the secret file ${file}: ${(error as Error).message}`);
    }
  }
  if (!secret) throw new ConfigError("no secret: set COMPUTERD_SECRET or --secret-file");
  if (secret.length < MIN_SECRET_LENGTH)
    throw new ConfigError(`the secret must be at least ${MIN_SECRET_LENGTH} characters`);
  return secret;
}

/** What the command line asked for: a configuration, or the help text. */
export type ParsedConfig = { kind: "config"; config: Config } | { kind: "help"; text: string };

/**
 * Parses flags and environment (pass `process.env`: the secret is taken out of it). Throws
 * ConfigError for unknown flags and bad values.
 */
export function parseConfig(argv: string[], env: Record<string, string | undefined>): ParsedConfig {
  const options: Record<string, { type: "string" | "boolean" }> = {
    help: { type: "boolean" },
    "secret-file": { type: "string" },
  };
  for (const option of OPTIONS) options[option.flag] = { type: "string" };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (values.help === true) return { kind: "help", text: helpText() };
  const settings: Record<string, string | number> = {};
  for (const option of OPTIONS) {
    const flag = values[option.flag];
    const raw = typeof flag === "string" ? flag : (env[option.env] ?? option.default);
    settings[option.key] = convert(option, raw);
  }
  if (settings.egress === "all" && settings.egressAllow !== "")
    throw new ConfigError("--egress-allow (EGRESS_ALLOW) needs --egress none: egress all reaches every host");
  if (settings.sandboxUid === 0) throw new ConfigError("--sandbox-uid (SANDBOX_UID) must not be root (0)");
  if (settings.dialBack !== "" && !/^(https?|wss?):\/\/[^/]/.test(String(settings.dialBack)))
    throw new ConfigError("--dial-back (DIAL_BACK) must be an http, https, ws or wss URL");
  const secretFile = values["secret-file"];
  const secret = takeSecret(env, typeof secretFile === "string" ? secretFile : undefined);
  return { kind: "config", config: { ...(settings as Omit<Config, "secret">), secret } };
}
