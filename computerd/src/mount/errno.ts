/**
 * FsError codes to the negative errno values FUSE replies with. A Record over
 * the closed FsErrorCode union, so a new vfs code without a mapping is a compile error.
 */
import { type FsErrorCode, isFsError } from "@computer/vfs";

/** Linux errno values (as FUSE wants them: negative). */
export const ERRNO = {
  EPERM: -1,
  ENOENT: -2,
  EIO: -5,
  EBADF: -9,
  EACCES: -13,
  EBUSY: -16,
  EEXIST: -17,
  EXDEV: -18,
  ENOTDIR: -20,
  EISDIR: -21,
  EINVAL: -22,
  EFBIG: -27,
  ENOSPC: -28,
  EROFS: -30,
  EMLINK: -31,
  ERANGE: -34,
  ENAMETOOLONG: -36,
  ENOSYS: -38,
  ENOTEMPTY: -39,
  ELOOP: -40,
  ENODATA: -61,
  EOPNOTSUPP: -95,
} as const;

/** Every vfs error code and the errno FUSE reports for it. */
export const FS_ERRNO: Record<FsErrorCode, number> = {
  ENOENT: ERRNO.ENOENT,
  EEXIST: ERRNO.EEXIST,
  ENOTDIR: ERRNO.ENOTDIR,
  EISDIR: ERRNO.EISDIR,
  ENOTEMPTY: ERRNO.ENOTEMPTY,
  EINVAL: ERRNO.EINVAL,
  ELOOP: ERRNO.ELOOP,
  ENAMETOOLONG: ERRNO.ENAMETOOLONG,
  EROFS: ERRNO.EROFS,
  EFBIG: ERRNO.EFBIG,
  ENOSPC: ERRNO.ENOSPC,
  EACCES: ERRNO.EACCES,
  EPERM: ERRNO.EPERM,
  EXDEV: ERRNO.EXDEV,
  EBUSY: ERRNO.EBUSY,
  EMLINK: ERRNO.EMLINK,
  ENODATA: ERRNO.ENODATA,
};

/** Where unexpected errors go (a FUSE callback must never throw into native code). */
export type ErrorLogger = (message: string, err: unknown) => void;

/**
 * The negative errno for a thrown value: the mapped code of an FsError (or an
 * error-shaped value carrying one), EIO for anything else, which is logged since
 * it is our own fault.
 */
export function toErrno(err: unknown, op: string, path: string, log: ErrorLogger): number {
  if (isFsError(err)) return FS_ERRNO[err.code];
  log(`${op} ${path}: unexpected error, replying EIO`, err);
  return ERRNO.EIO;
}
