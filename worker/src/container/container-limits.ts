/**
 * The computer's limits as computerd must know them: the quota, sent before the first push for
 * a command on a link (and before a later one when the limits differ from what that link took)
 * and again when `PUT /v1/computers/:id` changes it, so the container's mount reports the
 * computer's room (statfs) and refuses writes past it in the syscall. The DO still checks every
 * upload against its own quota.
 */
import type { Vfs } from "@computer/vfs";
import type { ComputerLimits } from "@computer/vfs/sync";
import type { LinkSession } from "./computerd-link.ts";

/** How long a quota change waits for computerd before the PUT answers anyway. */
export const LIMITS_TIMEOUT_MS = 5_000;

/** The limits of the computer whose filesystem is `vfs`. */
export function computerLimits(vfs: Vfs): ComputerLimits {
  return { quotaBytes: vfs.usage().quotaBytes };
}

/**
 * Sends `limits` to computerd on `session` unless it took exactly these already: a command's
 * push need not wait a round trip for a quota that did not change.
 */
export function sendLimits(session: LinkSession, limits: ComputerLimits): Promise<void> {
  const text = JSON.stringify(limits);
  if (session.limitsTaken === text) return Promise.resolve();
  return Promise.resolve(session.daemon.setLimits(limits)).then(() => {
    session.limitsTaken = text;
  });
}

/**
 * Tells a connected computerd the new limits. Never throws: without a link, or when computerd
 * does not answer in time, the next command's push sends them anyway.
 */
export async function announceLimits(
  session: LinkSession | undefined,
  limits: ComputerLimits,
): Promise<void> {
  if (session === undefined) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, LIMITS_TIMEOUT_MS);
  });
  try {
    await Promise.race([sendLimits(session, limits), timeout]);
  } catch (err) {
    console.error("could not send the quota to computerd:", err instanceof Error ? err.message : err);
  } finally {
    clearTimeout(timer);
  }
}

/** The code of an error that crossed capnweb (its own properties survive, its class does not). */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}
