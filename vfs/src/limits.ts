/** The explicit limits of the filesystem (ARCHITECTURE.md "Limits"). */

/** Longest name of one directory entry, in UTF-8 bytes. */
export const NAME_MAX = 255;
/**
 * Longest path string one syscall takes, in UTF-8 bytes: the limit of a symlink target. A
 * file's absolute path inside the computer has no limit (a program reaches files deeper
 * than this through a working directory or an open directory, as on Linux); only NAME_MAX
 * applies to each name on the way.
 */
export const PATH_MAX = 4096;
/** Longest extended-attribute name, and largest value, in bytes, as on Linux. */
export const XATTR_NAME_MAX = 255;
export const XATTR_SIZE_MAX = 65536;
/** Symlinks followed while resolving one path before ELOOP. */
export const SYMLOOP_MAX = 40;
/** Size of one content chunk; a DO SQLite value is at most 2 MB. */
export const CHUNK_SIZE = 1 << 20;
/** Largest file size: 2^53 - 1 keeps every offset an exact JS number. */
export const FILE_SIZE_MAX = Number.MAX_SAFE_INTEGER;
/** The inode number of the root directory. */
export const ROOT_INO = 1;
/** Where every runtime sees the computer; absolute symlink targets under it resolve inside the vfs. */
export const WORKSPACE = "/workspace";
