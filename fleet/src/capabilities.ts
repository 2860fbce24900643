/**
 * What this machine can run, for the suites that need more than Node (the container runtime
 * needs root, /dev/fuse and bubblewrap), and the one rule for a suite that cannot: it fails
 * the run on CI and with COMPUTER_REQUIRE=all, and elsewhere skips saying why (canRun).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** True when `command --version` runs on this machine. */
export function hasCommand(command: string): boolean {
  try {
    execFileSync(command, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** What this machine lacks to run computerd's FUSE mount and sandbox (empty: nothing). */
export function containerMissing(): string[] {
  return [
    ...(process.getuid?.() === 0 ? [] : ["root"]),
    ...(existsSync("/dev/fuse") ? [] : ["/dev/fuse"]),
    ...(hasCommand("bwrap") ? [] : ["bubblewrap (bwrap)"]),
  ];
}

/** True when this machine can run computerd's FUSE mount and sandbox. */
export const containerCapable = containerMissing().length === 0;

/** What a FUSE mount needs that this machine lacks: `/dev/fuse` (empty: nothing). */
export function missingFuse(): string[] {
  return existsSync("/dev/fuse") ? [] : ["/dev/fuse"];
}

/**
 * True when a missing capability must fail the run instead of skipping: on CI (`CI` set to
 * anything but "" or "false") and wherever `COMPUTER_REQUIRE=all`.
 */
export function capabilitiesRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return (ci !== undefined && ci !== "" && ci !== "false") || env.COMPUTER_REQUIRE === "all";
}

/**
 * Whether `suite`, which needs what `missing` lists as absent, runs on this machine: true when
 * nothing is missing. Otherwise, where capabilities are required (capabilitiesRequired) it
 * throws, so the test file and the run fail; elsewhere it prints which suite skips and why,
 * and returns false. Call it once per suite, where the test file decides to skip.
 */
export function canRun(
  suite: string,
  missing: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = console.warn,
): boolean {
  if (missing.length === 0) return true;
  const why = `${suite} needs ${missing.join(", ")}, missing on this machine`;
  if (capabilitiesRequired(env)) {
    throw new Error(`${why} (CI or COMPUTER_REQUIRE=all: a missing capability fails the run)`);
  }
  warn(`SKIP ${why} (COMPUTER_REQUIRE=all makes this a failure)`);
  return false;
}
