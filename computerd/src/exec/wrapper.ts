/**
 * The hook that turns a command into the process actually spawned. The plain wrapper runs
 * `/bin/sh -c` directly; the bubblewrap wrapper (bwrap.ts) runs the same shell in a sandbox.
 */

/** What a wrapper is given: the command, the directory it runs in, its environment. */
export interface CommandInput {
  /** Passed to `/bin/sh -c`. */
  command: string;
  /** Absolute directory as the command sees it; entered by `cd` inside the shell. */
  cwd: string;
  env: Record<string, string>;
  /**
   * The command runs on a pseudo-terminal that must stay its controlling terminal (job
   * control, Ctrl-C): a sandbox must not start a new session for it.
   */
  terminal?: boolean;
}

/** The process to spawn. `uid`/`gid` set the host user it runs as (the daemon must be root). */
export interface SpawnPlan {
  argv: [string, ...string[]];
  env: Record<string, string>;
  uid?: number;
  gid?: number;
}

/** Turns (command, cwd, env) into the real argv. Must not touch the filesystem of the mount. */
export type CommandWrapper = (input: CommandInput) => SpawnPlan;

/**
 * The shell script every wrapper runs: enter the directory, then run the command in a fresh
 * shell. The directory and the command are positional parameters, so nothing is quoted into
 * the script. The daemon never spawns with a cwd inside its own FUSE mount: the kernel would
 * ask the daemon, which is blocked inside spawn, to resolve it (a deadlock). `cd` runs in
 * the child, after spawn has returned.
 */
export const ENTER_AND_RUN = 'cd -- "$1" && exec /bin/sh -c "$2"';

/** `/bin/sh -c ENTER_AND_RUN computerd-exec CWD COMMAND`. */
export function shellArgv(command: string, cwd: string): [string, ...string[]] {
  return ["/bin/sh", "-c", ENTER_AND_RUN, "computerd-exec", cwd, command];
}

/** Runs the command as the daemon's own user, without a sandbox (the container runtime). */
export const plainShell: CommandWrapper = (input) => ({
  argv: shellArgv(input.command, input.cwd),
  env: input.env,
});
