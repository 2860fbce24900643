/**
 * The bubblewrap sandbox for `computerd host`: the computer's directory at /workspace, a
 * read-only system root built from an allow-list of the host's system folders (never the
 * host's `/` folder by folder), fresh /tmp, /proc and /dev, every namespace unshared (the
 * network too unless egress is allowed), no capabilities, and a host user that is not root.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
import { SANDBOX_HOME } from "./env.ts";
import { type CommandWrapper, shellArgv } from "./wrapper.ts";

/** How commands are sandboxed. */
export interface BubblewrapOptions {
  /** Host directory of the computer (its mount), bound read-write at /workspace. */
  workspace: string;
  /** `none`: a network namespace of its own (only a loopback); `all`: the host's network. */
  egress: "none" | "all";
  /**
   * Host user and group bwrap runs as. Defaults to nobody (65534) when the daemon is root, so
   * sandboxed processes hold neither root's capabilities nor its file ownership; the workspace
   * must then be writable by that user (a FUSE mount needs `allow_other`). `computerd host`
   * gives each computer a user of its own (`--sandbox-uid`).
   */
  hostUid?: number;
  hostGid?: number;
  /** User and group ids inside the sandbox (default 1000). */
  uid?: number;
  gid?: number;
  /** Host paths inside a system folder to hide behind an empty tmpfs (a state directory there). */
  hide?: string[];
  /** The bwrap binary (default `bwrap`, found on PATH). */
  bwrap?: string;
}

/** A system folder of the host as the sandbox shows it. */
export interface RootEntry {
  name: string;
  /** The link target when the entry is a symlink (`bin -> usr/bin`, merged /usr). */
  symlink?: string;
}

/**
 * The only host folders a sandbox sees (read-only): programs, libraries and system
 * configuration. Everything else of the host (/home, /root, /work, /opt, /srv, /mnt, /var,
 * /run, the repo checkout, computerd host's folder) has no path inside.
 */
export const SYSTEM_FOLDERS = ["bin", "etc", "lib", "lib32", "lib64", "libx32", "sbin", "usr"] as const;

/** Empty folders every sandbox has, so programs that expect them find them. */
const EMPTY_FOLDERS = ["home", "root", "run", "var", "var/tmp", "mnt", "opt", "srv"];

/** Which SYSTEM_FOLDERS exist on this host, as folders or as symlinks. */
export function systemRootEntries(root = "/"): RootEntry[] {
  const entries: RootEntry[] = [];
  for (const name of SYSTEM_FOLDERS) {
    const path = posix.join(root, name);
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) entries.push({ name, symlink: readlinkSync(path) });
      else if (stat.isDirectory()) entries.push({ name });
    } catch {
      // Not on this host (lib32 on most, libx32 almost everywhere).
    }
  }
  return entries;
}

/** True when `path` is inside (or is) one of the SYSTEM_FOLDERS the sandbox shows. */
export function inSystemFolder(path: string): boolean {
  const first = posix.resolve("/", path).split("/")[1] ?? "";
  return (SYSTEM_FOLDERS as readonly string[]).includes(first);
}

/**
 * The bwrap options (everything before `--`) for a sandbox over `entries`. The root is a
 * tmpfs holding the allowed system folders read-only; a folder of the host that is not one
 * of them never appears.
 */
export function bubblewrapArgs(
  options: BubblewrapOptions,
  entries: readonly RootEntry[],
  resolvConf?: string,
): string[] {
  const args = ["--unshare-all", ...(options.egress === "all" ? ["--share-net"] : [])];
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  args.push("--uid", String(options.uid ?? 1000), "--gid", String(options.gid ?? 1000));
  for (const entry of entries) {
    if (!(SYSTEM_FOLDERS as readonly string[]).includes(entry.name)) continue;
    const path = `/${entry.name}`;
    if (entry.symlink !== undefined) args.push("--symlink", entry.symlink, path);
    else args.push("--ro-bind", path, path);
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  for (const name of EMPTY_FOLDERS) args.push("--dir", `/${name}`);
  // /etc/resolv.conf often points into /run, which is not shown: bind the file it points to.
  if (resolvConf && !inSystemFolder(resolvConf)) args.push("--ro-bind", resolvConf, resolvConf);
  for (const path of options.hide ?? []) {
    if (inSystemFolder(path)) args.push("--tmpfs", posix.resolve("/", path));
  }
  args.push("--bind", options.workspace, "/workspace", "--chdir", "/");
  return args;
}

/** True when every directory from / down to `path` lets other users search it (o+x). */
export function reachableByOthers(path: string): boolean {
  let current = "";
  for (const part of posix.resolve("/", path).split("/").filter(Boolean)) {
    current += `/${part}`;
    try {
      if ((statSync(current).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Where /etc/resolv.conf really is (it often points into /run). */
export function resolvConfTarget(): string | undefined {
  try {
    return realpathSync("/etc/resolv.conf");
  } catch {
    return undefined;
  }
}

/**
 * The host user bwrap runs commands as: when the daemon is root, `hostUid` (default nobody,
 * 65534) and `hostGid` (default the same number); otherwise the daemon's own (undefined).
 */
export function sandboxHostUser(
  options: Pick<BubblewrapOptions, "hostUid" | "hostGid"> = {},
  root = process.getuid?.() === 0,
): {
  uid: number | undefined;
  gid: number | undefined;
} {
  if (!root) return { uid: undefined, gid: undefined };
  const uid = options.hostUid ?? 65534;
  return { uid, gid: options.hostGid ?? uid };
}

/**
 * A wrapper that runs each command in a bubblewrap sandbox. The host's system folders are
 * listed once, here. HOME defaults to /workspace (the base environment sets it, env.ts).
 */
export function bubblewrapWrapper(options: BubblewrapOptions): CommandWrapper {
  const { uid: hostUid, gid: hostGid } = sandboxHostUser(options);
  // A path the sandbox user cannot even reach is hidden already, and bwrap (running as that
  // user) could not mount a tmpfs over it: hide only what others can traverse to.
  const hide = hostUid === undefined ? options.hide : options.hide?.filter(reachableByOthers);
  const args = bubblewrapArgs(
    { ...options, ...(hide ? { hide } : {}) },
    systemRootEntries(),
    resolvConfTarget(),
  );
  const bwrap = options.bwrap ?? "bwrap";
  return (input) => {
    // A new session guards the daemon's own terminal from TIOCSTI; a terminal's shell owns
    // its pseudo-terminal and needs it as its controlling terminal for job control.
    const sandbox = input.terminal ? args.filter((arg) => arg !== "--new-session") : args;
    return {
      argv: [bwrap, ...sandbox, "--", ...shellArgv(input.command, input.cwd)],
      env: { HOME: SANDBOX_HOME, ...input.env },
      ...(hostUid === undefined ? {} : { uid: hostUid }),
      ...(hostGid === undefined ? {} : { gid: hostGid }),
    };
  };
}
