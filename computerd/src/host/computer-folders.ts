/**
 * Where `computerd host` keeps each computer, and which host user its sandbox runs as. Under
 * the host's folder (0711 root):
 *
 *     state/          0700 root: no sandbox user can enter it
 *       <id>/         the daemon's state (mirror, secret), 0700 root
 *     mnt/            0711 root: passable, not listable
 *       <id>/         0700, owned by <id>'s sandbox user: only that user (and root) enter
 *         workspace/  the mount point, bound at /workspace in <id>'s sandbox
 *
 * Each computer has a host user of its own (SANDBOX_UID_BASE + k·SANDBOX_UID_STRIDE), recorded
 * as the owner of its `mnt/<id>` folder, so one computer's sandbox user cannot pass another's
 * folder even by a path it guessed.
 */
import { chmodSync, chownSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The first host uid given to a computer's sandbox (above any account's ids). */
export const SANDBOX_UID_BASE = 1_000_000;
/** Distance between two computers' uids: room for a full 16-bit id range each. */
export const SANDBOX_UID_STRIDE = 65_536;
/** uids stay below 2^31 (signed 32-bit ids in some tools). */
const SANDBOX_UID_LIMIT = 2 ** 31 - SANDBOX_UID_STRIDE;

/** The folders of one computer. */
export interface ComputerFolders {
  stateDir: string;
  /** `mnt/<id>`: the folder only the computer's sandbox user enters. */
  door: string;
  mountPoint: string;
}

/** The folders of computer `id` under the host folder `dir`. */
export function computerFolders(dir: string, id: string): ComputerFolders {
  const door = join(dir, "mnt", id);
  return { stateDir: join(dir, "state", id), door, mountPoint: join(door, "workspace") };
}

function ownerOf(path: string): number | undefined {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
}

/**
 * The sandbox uid of computer `id`: the owner of its `mnt/<id>` folder when it has one, else
 * the first uid no other computer's folder owns. Synchronous, so two computers started at once
 * never claim the same uid.
 */
export function sandboxUidOf(dir: string, id: string): number {
  const mnt = join(dir, "mnt");
  const own = ownerOf(join(mnt, id));
  if (own !== undefined && own >= SANDBOX_UID_BASE) return own;
  let taken: Set<number>;
  try {
    taken = new Set(readdirSync(mnt).map((name) => ownerOf(join(mnt, name)) ?? -1));
  } catch {
    taken = new Set();
  }
  for (let uid = SANDBOX_UID_BASE; uid < SANDBOX_UID_LIMIT; uid += SANDBOX_UID_STRIDE) {
    if (!taken.has(uid)) return uid;
  }
  throw new Error("no sandbox uid left for another computer");
}

/**
 * Creates (or repairs) the folders of one computer with the modes above. `sandboxUid` owns the
 * door and the mount point when the host is root; otherwise everything is the host's own.
 */
export function prepareComputerFolders(
  dir: string,
  folders: ComputerFolders,
  sandboxUid: number | undefined,
): void {
  const mnt = join(dir, "mnt");
  const state = join(dir, "state");
  mkdirSync(folders.stateDir, { recursive: true, mode: 0o700 });
  mkdirSync(folders.mountPoint, { recursive: true, mode: 0o700 });
  // bwrap, running as the sandbox user, resolves the mount point's path: the host folder and
  // mnt/ must be passable (not listable) by other users; state/ is not even passable.
  chmodSync(dir, 0o711);
  chmodSync(mnt, 0o711);
  chmodSync(state, 0o700);
  chmodSync(folders.stateDir, 0o700);
  chmodSync(folders.door, 0o700);
  if (sandboxUid !== undefined) {
    chownSync(folders.door, sandboxUid, sandboxUid);
    // Without a FUSE mount over it, the folder itself is the workspace of the sandbox's user.
    chownSync(folders.mountPoint, sandboxUid, sandboxUid);
  }
}
