/**
 * Owner ids as the kernel sees them versus as the vfs stores them. Sandboxed commands run as
 * an unprivileged host user (nobody, 65534, when the daemon is root) while the computer's files
 * belong to the vfs owner (root, 0:0, the Durable Object's default). Swapping the two ids in
 * getattr and chown makes the sandbox user the owner of its workspace under
 * `default_permissions`, so it can create and write files and tools that check ownership
 * (git's safe.directory) are satisfied; the vfs and the Durable Object keep 0:0. Commands that
 * are root of a user namespace over the image's root filesystem use offsetOwners instead.
 */

/** A pair of owner ids. */
export interface Owner {
  uid: number;
  gid: number;
}

/** Maps owner ids between the vfs and the kernel (both directions). */
export interface OwnerMap {
  /** A vfs uid/gid as reported to the kernel (getattr). */
  toKernel(owner: Owner): Owner;
  /** A uid/gid from the kernel (chown; -1 = keep) as stored in the vfs. */
  fromKernel(owner: Owner): Owner;
  /**
   * The kernel ids [lo, hi) that toKernel(fromKernel(id)) gives back: a new file of such a
   * caller shows as the caller's own, which lets the FUSE loop answer its create.
   */
  readonly roundTrip: { lo: number; hi: number };
}

/** Every id a uid_t holds. */
export const ALL_IDS = { lo: 0, hi: 2 ** 32 } as const;

function swap(id: number, a: number, b: number): number {
  if (id === a) return b;
  if (id === b) return a;
  return id;
}

/**
 * The map that swaps `vfs` and `kernel` ids (uids and gids separately): a bijection, so ids of
 * other owners pass through unchanged and no two vfs ids show as the same kernel id.
 */
export function swapOwners(vfs: Owner, kernel: Owner): OwnerMap {
  const map = (owner: Owner): Owner => ({
    uid: owner.uid < 0 ? owner.uid : swap(owner.uid, vfs.uid, kernel.uid),
    gid: owner.gid < 0 ? owner.gid : swap(owner.gid, vfs.gid, kernel.gid),
  });
  return { toKernel: map, fromKernel: map, roundTrip: ALL_IDS };
}

/**
 * The map of commands that are root of a user namespace whose ids 0…count-1 are the host's
 * `base`…`base+count-1`: vfs id N shows as host id base+N, so inside the namespace every owner
 * is the vfs's own and `chown 1234` stores 1234. A vfs id the namespace cannot hold shows as
 * its overflow id (65534 inside); a host id outside the range (root of the host) passes through.
 */
export function offsetOwners(base: number, count: number): OwnerMap {
  const overflow = base + 65534;
  const id = (n: number) => (n < 0 ? n : n < count ? base + n : overflow);
  const back = (n: number) => (n >= base && n < base + count ? n - base : n);
  return {
    toKernel: (owner) => ({ uid: id(owner.uid), gid: id(owner.gid) }),
    fromKernel: (owner) => ({ uid: back(owner.uid), gid: back(owner.gid) }),
    roundTrip: { lo: base, hi: base + count },
  };
}
