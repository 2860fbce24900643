/**
 * The bubblewrap sandbox for `computerd host`: the computer's directory at /workspace, the
 * host's system read-only, fresh /tmp, /proc and /dev, every namespace unshared (the network
 * too unless egress is allowed), no capabilities, and a host user that is not root.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
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
   * must then be writable by that user (a FUSE mount needs `allow_other`).
   */
  hostUid?: number;
  hostGid?: number;
  /** User and group ids inside the sandbox (default 1000). */
  uid?: number;
  gid?: number;
  /** More host paths to hide behind an empty tmpfs (the daemon's state directory, say). */
  hide?: string[];
  /** The bwrap binary (default `bwrap`, found on PATH). */
  bwrap?: string;
}

/** A top-level entry of the host's root directory. */
export interface RootEntry {
  name: string;
  /** The link target when the entry is a symlink (`bin -> usr/bin`). */
  symlink?: string;
}

/** Top-level host directories never shown: they are replaced (proc, dev, tmp) or private. */
const REPLACED = new Set(["proc", "dev", "tmp", "workspace", "lost+found"]);
/** Shown as empty directories: home directories and runtime sockets are the host's own. */
const PRIVATE = ["root", "home", "run"];

/** The host's `/` as RootEntry values. */
export function hostRootEntries(): RootEntry[] {
  return readdirSync("/").map((name) => {
    const path = `/${name}`;
    return lstatSync(path).isSymbolicLink() ? { name, symlink: readlinkSync(path) } : { name };
  });
}

/**
 * The bwrap options (everything before `--`) for a sandbox over `entries`. The root is a
 * tmpfs with each host entry bound read-only, rather than `--ro-bind / /`: a read-only root
 * would have no place to create /workspace when the host has none.
 */
export function bubblewrapArgs(
  options: BubblewrapOptions,
  entries: readonly RootEntry[],
  resolvConf?: string,
): string[] {
  const args = ["--unshare-all", ...(options.egress === "all" ? ["--share-net"] : [])];
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  args.push("--uid", String(options.uid ?? 1000), "--gid", String(options.gid ?? 1000));
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    if (REPLACED.has(entry.name) || PRIVATE.includes(entry.name)) continue;
    const path = `/${entry.name}`;
    if (entry.symlink !== undefined) args.push("--symlink", entry.symlink, path);
    else args.push("--ro-bind", path, path);
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  for (const name of PRIVATE) args.push("--dir", `/${name}`);
  // /etc/resolv.conf often points into /run, which is hidden: bind the file it points to.
  if (resolvConf && PRIVATE.some((name) => resolvConf.startsWith(`/${name}/`))) {
    args.push("--ro-bind", resolvConf, resolvConf);
  }
  for (const path of options.hide ?? []) args.push("--tmpfs", posix.resolve("/", path));
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

function resolvConfTarget(): string | undefined {
  try {
    return realpathSync("/etc/resolv.conf");
  } catch {
    return undefined;
  }
}

/** The host user bwrap runs commands as: nobody (65534) when the daemon is root, else the daemon's own. */
export function sandboxHostUser(
  options: Pick<BubblewrapOptions, "hostUid" | "hostGid"> = {},
  root = process.getuid?.() === 0,
): {
  uid: number | undefined;
  gid: number | undefined;
} {
  return {
    uid: options.hostUid ?? (root ? 65534 : undefined),
    gid: options.hostGid ?? (root ? 65534 : undefined),
  };
}

/**
 * A wrapper that runs each command in a bubblewrap sandbox. The host's root is listed once,
 * here. HOME is /workspace unless the caller set another, since the host's home is hidden.
 */
export function bubblewrapWrapper(options: BubblewrapOptions): CommandWrapper {
  const { uid: hostUid, gid: hostGid } = sandboxHostUser(options);
  // A path the sandbox user cannot even reach is hidden already, and bwrap (running as that
  // user) could not mount a tmpfs over it: hide only what others can traverse to.
  const hide = hostUid === undefined ? options.hide : options.hide?.filter(reachableByOthers);
  const args = bubblewrapArgs(
    { ...options, ...(hide ? { hide } : {}) },
    hostRootEntries(),
    resolvConfTarget(),
  );
  const bwrap = options.bwrap ?? "bwrap";
  return (input) => {
    const env = { ...input.env };
    if (
      env.HOME === undefined ||
      PRIVATE.some((name) => env.HOME === `/${name}` || env.HOME?.startsWith(`/${name}/`))
    ) {
      env.HOME = "/workspace";
    }
    return {
      argv: [bwrap, ...args, "--", ...shellArgv(input.command, input.cwd)],
      env,
      ...(hostUid === undefined ? {} : { uid: hostUid }),
      ...(hostGid === undefined ? {} : { gid: hostGid }),
    };
  };
}
