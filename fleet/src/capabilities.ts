/**
 * What this machine can run, for the suites that need more than Node: the container runtime
 * needs root, /dev/fuse and bubblewrap (computerd's FUSE mount and sandbox).
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
