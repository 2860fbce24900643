/**
 * The container sandbox of `computerd host` over the image's root filesystem: each command
 * runs as root (uid and gid 0) in a user namespace whose ids 0–65535 are the host's
 * subordinate ids `idBase`…`idBase+65535` (native/userns.c), under bubblewrap with the
 * computer's writable root (the image's root filesystem under a throwaway overlay, prepared by
 * the host: host/computer-root.ts) as `/` and its mount at /workspace, pid, ipc, uts, cgroup
 * and (unless egress is allowed) network namespaces of its own. Root there owns what the
 * namespace maps and nothing of the host.
 */
import { chownSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvConfTarget } from "./bwrap.ts";
import { ROOTFS_HOME } from "./env.ts";
import { type CommandWrapper, shellArgv } from "./wrapper.ts";

/** Ids each computer's namespace maps: a full 16-bit range, as in a container. */
export const ID_COUNT = 65_536;

/** The `computerd-userns` program (computerd/native/userns.c, built by build:native). */
export const USERNS_HELPER = fileURLToPath(
  new URL("../../native/build/Release/computerd-userns", import.meta.url),
);

/** How commands run over a root filesystem. */
export interface RootfsSandboxOptions {
  /** The computer's root as the host sees it (its overlay), bound at `/`. */
  root: string;
  /** Host directory of the computer (its mount), bound at /workspace. */
  workspace: string;
  /** `none`: a network namespace of its own (only a loopback); `all`: the host's network. */
  egress: "none" | "all";
  /** The host id that is uid and gid 0 inside. */
  idBase: number;
  bwrap?: string;
  helper?: string;
}

/** The argv before the command: the user namespace, then bwrap's options up to `--`. */
export function rootfsSandboxArgv(options: RootfsSandboxOptions, resolvConf?: string): string[] {
  const argv = [options.helper ?? USERNS_HELPER, "run", String(options.idBase), String(ID_COUNT)];
  argv.push(
    options.bwrap ?? "bwrap",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
  );
  if (options.egress !== "all") argv.push("--unshare-net");
  argv.push("--die-with-parent", "--new-session", "--hostname", "computer");
  argv.push("--bind", options.root, "/", "--dev", "/dev", "--proc", "/proc");
  // With the host's network, its resolver too (the image's own file names none).
  if (options.egress === "all" && resolvConf) argv.push("--ro-bind", resolvConf, "/etc/resolv.conf");
  argv.push("--bind", options.workspace, "/workspace", "--chdir", "/");
  return argv;
}

/** What a container runtime's /etc/hosts says: the loopback names and the sandbox's hostname. */
export const HOSTS = "127.0.0.1\tlocalhost computer\n::1\tlocalhost ip6-localhost ip6-loopback\n";

/**
 * Gives the computer's root an /etc/hosts, as a container runtime does (the image's root has
 * none, and without it `localhost` does not resolve), owned by the computer's root (`idBase`)
 * so commands may change it; one already there is left alone.
 */
export function ensureHosts(root: string, idBase: number): void {
  const path = join(root, "etc", "hosts");
  if (existsSync(path)) return;
  try {
    writeFileSync(path, HOSTS, { mode: 0o644 });
    chownSync(path, idBase, idBase);
  } catch {
    // A root the daemon cannot write (a test's, read-only): commands resolve what it has.
  }
}

/** A wrapper running each command as root of the computer's user namespace over its root. */
export function rootfsSandboxWrapper(options: RootfsSandboxOptions): CommandWrapper {
  const argv = rootfsSandboxArgv(options, resolvConfTarget());
  const [file, ...rest] = argv;
  if (file === undefined) throw new Error("no sandbox helper");
  return (input) => {
    // As in bwrap.ts: a terminal's shell keeps its pseudo-terminal as controlling terminal.
    const sandbox = input.terminal ? rest.filter((arg) => arg !== "--new-session") : rest;
    return {
      argv: [file, ...sandbox, "--", ...shellArgv(input.command, input.cwd)],
      env: { HOME: ROOTFS_HOME, ...input.env },
    };
  };
}
