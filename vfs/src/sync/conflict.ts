/**
 * The conflict rule. A path changed on both sides since they last agreed resolves the same way
 * whichever side detects it: the Durable Object's version stays at the path (the DO is the
 * authority, and its writes were already acknowledged to API callers), the container's version
 * is kept beside it as `<name>.conflict-container-<fp8>` and reported. `<fp8>` is the start of
 * the losing state's fingerprint, so both sides name the same copy the same way.
 */
import { NAME_MAX } from "../limits.ts";
import { byteLength, childPath } from "../paths.ts";
import { baseName, parentOf } from "./state.ts";
import type { Side } from "./wire.ts";

/** Whose version stays at a conflicting path. */
export const CONFLICT_WINNER: Side = "do";

/** The side whose version becomes a conflict copy. */
export const CONFLICT_LOSER: Side = "container";

/** Shortens `name` (by whole code points) until it is at most `max` UTF-8 bytes. */
function fitName(name: string, max: number): string {
  let out = name;
  while (byteLength(out) > max) out = Array.from(out).slice(0, -1).join("");
  return out;
}

/**
 * The path of the conflict copy number `n` (1 = the plain name) of `path` for the losing
 * version with fingerprint `fp`. Names stay within NAME_MAX.
 */
export function conflictCopyPath(path: string, fp: string, n = 1): string {
  const id = (fp === "" ? "0".repeat(8) : fp.slice(0, 8)).padEnd(8, "0");
  const suffix = `.conflict-${CONFLICT_LOSER}-${id}${n > 1 ? `-${n}` : ""}`;
  const name = fitName(baseName(path), NAME_MAX - byteLength(suffix)) + suffix;
  return childPath(parentOf(path), name);
}
