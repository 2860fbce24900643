/**
 * Linux errno numbers of the codes the computer's layers speak: every FsErrorCode plus the few
 * a mount or a Node-style fs adds (EIO, EBADF, ENOSYS, ERANGE, EOPNOTSUPP). One table, so the
 * FUSE mount, the git fs and the guests' node:fs give a code the same number. Pure data (the
 * guest bundles import it as `@computer/vfs/errno`).
 */
export const LINUX_ERRNO = {
  EPERM: 1,
  ENOENT: 2,
  EIO: 5,
  EBADF: 9,
  EACCES: 13,
  EBUSY: 16,
  EEXIST: 17,
  EXDEV: 18,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  EFBIG: 27,
  ENOSPC: 28,
  EROFS: 30,
  EMLINK: 31,
  ERANGE: 34,
  ENAMETOOLONG: 36,
  ENOSYS: 38,
  ENOTEMPTY: 39,
  ELOOP: 40,
  ENODATA: 61,
  EOPNOTSUPP: 95,
} as const;

/** A code with a Linux errno number. */
export type ErrnoName = keyof typeof LINUX_ERRNO;

/** The errno number of `code`, or undefined when it has none. */
export function errnoOf(code: string): number | undefined {
  return Object.hasOwn(LINUX_ERRNO, code) ? LINUX_ERRNO[code as ErrnoName] : undefined;
}
