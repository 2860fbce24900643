/**
 * The kernel's `fuse.wake_here` module parameter: turned on (best effort) before a FUSE mount.
 * Some kernels carry it (this machine's 6.18 "fc" kernel does; mainline has none): with it on,
 * the task waiting for a FUSE reply is woken on the CPU of the thread that answered it.
 */
import { readFileSync, writeFileSync } from "node:fs";

/** Where the parameter lives when the kernel has it. */
export const WAKE_HERE_PARAMETER = "/sys/module/fuse/parameters/wake_here";

/**
 * What became of the parameter: "on" (it already was), "turned on" (by this call), "absent"
 * (the kernel has no such parameter), or "refused: CODE" (it exists, but the write failed:
 * not root, a read-only /sys in a container).
 */
export type WakeHere = "on" | "turned on" | "absent" | `refused: ${string}`;

/**
 * Turns `fuse.wake_here` on where it exists and may be written; never throws.
 *
 * Why: without it, a FUSE reply wakes the requester on whichever CPU the scheduler picks, and on
 * a VM whose idle vCPUs halt at once (haltpoll's guest polling off, as here) that is the idle,
 * halted one: every write syscall's round trip then pays a hypervisor wake-up and the writer
 * migrates back and forth (~200 migrations per 64 MiB written in 4 KiB writes). Kept on the
 * answering CPU, `dd bs=4k` of 64 MiB through the mount took 0.22–0.25 s instead of 0.54–0.86 s
 * (docs/BENCH.md, "The kernel's fuse.wake_here"). It is a setting of the whole kernel, for every
 * FUSE mount of the host, and only a hint to the scheduler: it changes where a task runs, never
 * what a request answers, so turning it on is safe for any FUSE server; it stays on after the
 * mount ends (another mount of the host may rely on it meanwhile).
 */
export async function turnOnWakeHere(parameter = WAKE_HERE_PARAMETER): Promise<WakeHere> {
  let current: string;
  // Synchronously (sysfs answers from memory): on a mount's start, not a trip through the thread pool.
  try {
    current = readFileSync(parameter, "utf8").trim();
  } catch (err) {
    return errorCode(err) === "ENOENT" ? "absent" : `refused: ${errorCode(err)}`;
  }
  if (current === "Y" || current === "1") return "on";
  try {
    writeFileSync(parameter, "Y");
    return "turned on";
  } catch (err) {
    return `refused: ${errorCode(err)}`;
  }
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "EIO";
}
