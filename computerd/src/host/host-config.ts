/**
 * `computerd host` settings: where it listens (127.0.0.1 only), its bearer token, the folder
 * holding every computer's state and mount point, how commands are sandboxed, and after how
 * long an idle daemon is stopped. Flags win over environment variables.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { inSystemFolder } from "../exec/bwrap.ts";
import { DEFAULT_SPARES } from "./spare-pool.ts";

/** The host's settings. */
export interface HostConfig {
  /** Always a loopback address: the host launches processes for whoever holds the token. */
  listen: string;
  port: number;
  /** Bearer token the Worker presents (COMPUTERD_HOST_TOKEN or --token-file). */
  token: string;
  /** Per-computer folders live here: `state/<id>` (0700) and `mnt/<id>` (the workspace). */
  dir: string;
  /** How each daemon runs commands (`bwrap` by default, `none` for hosts without it). */
  sandbox: "bwrap" | "none";
  /**
   * The image's root filesystem (images/rootfs/build-rootfs.sh): with bwrap as root, commands
   * run over it as root of their computer's user namespace; "" = the host's system folders.
   */
  rootfs: string;
  /** How each daemon mounts its computer (default `fuse3`; `none` where /dev/fuse is missing). */
  mount: "fuse3" | "none";
  /** A daemon with no running command and no request for this long is stopped. */
  idleMs: number;
  /** The command that runs `computerd` (default: this Node and computerd's bin). */
  computerd: string[];
  /** How many spare daemons to keep started for the next computers (spare-pool.ts; 0: none). */
  spares: number;
  /** Start daemons from one bundled file of the sources, made at the host's start (daemon-bundle.ts). */
  bundle: boolean;
}

/** A configuration mistake. */
export class HostConfigError extends Error {
  override readonly name = "HostConfigError";
}

/** `computerd host --help`. */
export const HOST_HELP = `usage: computerd host [options]

Runs one computerd per computer on demand for a local Worker (make dev). Listens on 127.0.0.1.

  --port N            COMPUTERD_HOST_PORT, default 8790 (0: any free port)
  --dir PATH          COMPUTERD_HOST_DIR, default .computer/host
  --token-file PATH   COMPUTERD_HOST_TOKEN_FILE (or COMPUTERD_HOST_TOKEN itself); required
  --sandbox MODE      COMPUTERD_HOST_SANDBOX, bwrap|none, default bwrap
  --mount MODE        COMPUTERD_HOST_MOUNT, fuse3|none, default fuse3 (none without /dev/fuse)
  --rootfs PATH       COMPUTERD_HOST_ROOTFS, the image's root filesystem commands run over as root
                      of their computer's user namespace (make dev builds it); default: none, the
                      host's system folders as an unprivileged user
  --idle-minutes N    COMPUTERD_HOST_IDLE_MINUTES, default 10
  --spare MODE        COMPUTERD_HOST_SPARE, on|off|N, default on (${DEFAULT_SPARES}): daemons started ahead
                      for the next computers (Node and computerd loaded, nothing of any computer)
  --bundle MODE       COMPUTERD_HOST_BUNDLE, on|off, default on: daemons run computerd bundled into
                      one file at the host's start (a faster start); off: from its sources
`;

const MIN_TOKEN_LENGTH = 16;

/** Spares beyond this only hold memory: a host starts computers one at a time. */
const MAX_SPARES = 8;

/**
 * The mount backend when none is asked for: computerd's own libfuse3 addon where the kernel
 * offers FUSE, no mount (a plain folder) where it does not.
 */
export function defaultHostMount(hasFuseDevice: boolean): HostConfig["mount"] {
  return hasFuseDevice ? "fuse3" : "none";
}

function computerdCommand(): string[] {
  return [process.execPath, new URL("../../bin/computerd.js", import.meta.url).pathname];
}

/** Parses flags and environment; the token is removed from `env` (pass process.env). */
export function parseHostConfig(
  argv: string[],
  env: Record<string, string | undefined>,
): HostConfig | "help" {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        help: { type: "boolean" },
        port: { type: "string" },
        dir: { type: "string" },
        "token-file": { type: "string" },
        sandbox: { type: "string" },
        mount: { type: "string" },
        rootfs: { type: "string" },
        "idle-minutes": { type: "string" },
        spare: { type: "string" },
        bundle: { type: "string" },
      },
    }).values;
  } catch (error) {
    throw new HostConfigError((error as Error).message);
  }
  if (values.help === true) return "help";
  const pick = (flag: string, name: string, fallback: string): string => {
    const value = values[flag];
    return typeof value === "string" ? value : (env[name] ?? fallback);
  };
  const port = Number(pick("port", "COMPUTERD_HOST_PORT", "8790"));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new HostConfigError("--port must be 0..65535");
  const idle = Number(pick("idle-minutes", "COMPUTERD_HOST_IDLE_MINUTES", "10"));
  if (!Number.isFinite(idle) || idle <= 0)
    throw new HostConfigError("--idle-minutes must be a positive number");
  const sandbox = pick("sandbox", "COMPUTERD_HOST_SANDBOX", "bwrap");
  if (sandbox !== "bwrap" && sandbox !== "none") throw new HostConfigError("--sandbox must be bwrap or none");
  const mount = pick("mount", "COMPUTERD_HOST_MOUNT", defaultHostMount(existsSync("/dev/fuse")));
  if (mount !== "fuse3" && mount !== "none") {
    throw new HostConfigError("--mount must be fuse3 or none");
  }
  const spare = pick("spare", "COMPUTERD_HOST_SPARE", "on");
  const spares = spare === "on" ? DEFAULT_SPARES : spare === "off" ? 0 : Number(spare);
  if (!/^(on|off|\d+)$/.test(spare) || spares > MAX_SPARES)
    throw new HostConfigError(`--spare must be on, off or a count up to ${MAX_SPARES}`);
  const bundle = pick("bundle", "COMPUTERD_HOST_BUNDLE", "on");
  if (bundle !== "on" && bundle !== "off") throw new HostConfigError("--bundle must be on or off");
  const tokenFile = pick("token-file", "COMPUTERD_HOST_TOKEN_FILE", "");
  let token = env.COMPUTERD_HOST_TOKEN ?? "";
  delete env.COMPUTERD_HOST_TOKEN;
  if (tokenFile !== "") {
    try {
      token = readFileSync(tokenFile, "utf8").trim();
    } catch (error) {
      throw new HostConfigError(`cannot read the token file: ${(error as Error).message}`);
    }
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new HostConfigError(`a token of at least ${MIN_TOKEN_LENGTH} characters is required`);
  }
  const dir = resolve(pick("dir", "COMPUTERD_HOST_DIR", ".computer/host"));
  const rootfs = pick("rootfs", "COMPUTERD_HOST_ROOTFS", "");
  if (rootfs !== "" && !existsSync(join(rootfs, "bin", "sh"))) {
    throw new HostConfigError(`--rootfs ${rootfs} is not a root filesystem (no bin/sh)`);
  }
  // Every sandbox shows the system folders: computers' folders there would be seen by all.
  if (inSystemFolder(dir)) throw new HostConfigError(`--dir ${dir} is inside a system folder sandboxes see`);
  return {
    listen: "127.0.0.1",
    port,
    token,
    dir,
    sandbox,
    rootfs: rootfs === "" ? "" : resolve(rootfs),
    mount,
    idleMs: idle * 60_000,
    computerd: computerdCommand(),
    spares,
    bundle: bundle === "on",
  };
}
