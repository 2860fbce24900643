/**
 * FsError codes to the negative errno values FUSE replies with. A Record over
 * the closed FsErrorCode union, so a new vfs code without a mapping is a compile error.
 */
import {
  ChunkUnavailableError,
  type ErrnoName,
  type FsErrorCode,
  isFsError,
  LINUX_ERRNO,
} from "@computer/vfs";

/** Linux errno values (as FUSE wants them: negative). */
export const ERRNO = Object.fromEntries(
  Object.entries(LINUX_ERRNO).map(([name, errno]) => [name, -errno]),
) as { readonly [name in ErrnoName]: number };

/** Every vfs error code and the errno FUSE reports for it (typed: a code without one is a compile error). */
export const FS_ERRNO: Record<FsErrorCode, number> = ERRNO;

/** Where unexpected errors go (a FUSE callback must never throw into native code). */
export type ErrorLogger = (message: string, err: unknown) => void;

/**
 * The negative errno for a thrown value: the mapped code of an FsError (or an
 * error-shaped value carrying one), EIO for anything else, which is logged since
 * it is our own fault.
 */
export function toErrno(err: unknown, op: string, path: string, log: ErrorLogger): number {
  if (isFsError(err)) return FS_ERRNO[err.code];
  // A chunk still at the Durable Object that could not be fetched: EIO, and not our fault.
  if (err instanceof ChunkUnavailableError) return ERRNO.EIO;
  log(`${op} ${path}: unexpected error, replying EIO`, err);
  return ERRNO.EIO;
}
