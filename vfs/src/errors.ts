/**
 * The one typed error of the filesystem: a POSIX code, the path it concerns
 * and the operation that raised it. Callers branch on `code`, never on `message`.
 */

/** Every code the vfs raises. A new code must also be added to each mapping `Record<FsErrorCode, …>`. */
export type FsErrorCode =
  | "ENOENT"
  | "EEXIST"
  | "ENOTDIR"
  | "EISDIR"
  | "ENOTEMPTY"
  | "EINVAL"
  | "ELOOP"
  | "ENAMETOOLONG"
  | "EROFS"
  | "EFBIG"
  | "ENOSPC"
  | "EACCES"
  | "EPERM"
  | "EXDEV"
  | "EBUSY"
  | "EMLINK"
  | "ENODATA";

export const FS_ERROR_CODES: readonly FsErrorCode[] = [
  "ENOENT",
  "EEXIST",
  "ENOTDIR",
  "EISDIR",
  "ENOTEMPTY",
  "EINVAL",
  "ELOOP",
  "ENAMETOOLONG",
  "EROFS",
  "EFBIG",
  "ENOSPC",
  "EACCES",
  "EPERM",
  "EXDEV",
  "EBUSY",
  "EMLINK",
  "ENODATA",
];

const DESCRIPTIONS: Record<FsErrorCode, string> = {
  ENOENT: "no such file or directory",
  EEXIST: "file already exists",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ENOTEMPTY: "directory not empty",
  EINVAL: "invalid argument",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EROFS: "read-only file system",
  EFBIG: "file too large",
  ENOSPC: "no space left on device (quota exceeded)",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EXDEV: "cross-device link",
  EBUSY: "resource busy",
  EMLINK: "too many links",
  ENODATA: "no data available",
};

/** A filesystem error with a POSIX code. `message` reads like Node's: `ENOENT: no such file or directory, stat '/a'`. */
export class FsError extends Error {
  readonly code: FsErrorCode;
  readonly path: string | undefined;
  readonly syscall: string | undefined;

  constructor(code: FsErrorCode, syscall?: string, path?: string, detail?: string) {
    const where = syscall ? `, ${syscall}${path === undefined ? "" : ` '${path}'`}` : "";
    super(`${code}: ${detail ?? DESCRIPTIONS[code]}${where}`);
    this.name = "FsError";
    this.code = code;
    this.path = path;
    this.syscall = syscall;
  }
}

/**
 * True for an FsError or anything shaped like one (capnweb and Workers RPC keep an
 * error's own properties but not its class, so never use `instanceof` across a boundary).
 */
export function isFsError(value: unknown): value is FsError {
  if (typeof value !== "object" || value === null) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === "string" && (FS_ERROR_CODES as readonly string[]).includes(code);
}

/** Rebuilds a real FsError from an error-shaped value that crossed an RPC boundary. */
export function toFsError(value: unknown): FsError | undefined {
  if (!isFsError(value)) return undefined;
  const v = value as { code: FsErrorCode; syscall?: string; path?: string; message?: string };
  const err = new FsError(v.code, v.syscall, v.path);
  if (typeof v.message === "string") err.message = v.message;
  return err;
}
