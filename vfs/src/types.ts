/**
 * Public value types of the vfs: stats, directory entries, change records
 * and the options of each operation.
 */

/** The kinds of inode the vfs stores. */
export type FileType = "file" | "dir" | "symlink" | "fifo" | "socket" | "char" | "block";

/** A point in time with nanosecond precision; `sec` may be negative (before 1970). */
export interface Timespec {
  sec: number;
  nsec: number;
}

/** What `stat`/`lstat` return. `mode` holds permission bits plus setuid/setgid/sticky (0o7777), not the type. */
export interface Stat {
  ino: number;
  type: FileType;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  rdev: number;
  /** Bytes of stored chunks (sparse holes do not count). */
  allocated: number;
  atime: Timespec;
  mtime: Timespec;
  ctime: Timespec;
}

/** One directory entry as `readdir` lists it. */
export interface DirEntry {
  name: string;
  type: FileType;
  ino: number;
  size: number;
  mode: number;
  mtime: Timespec;
}

export interface ReaddirOptions {
  /** Return names strictly after this one (names sort by their UTF-8 bytes). */
  after?: string;
  /** At most this many entries (default: all). */
  limit?: number;
}

export interface ReaddirPage {
  entries: DirEntry[];
  /** Pass as `after` to get the next page; absent on the last page. */
  next?: string;
}

export interface MkdirOptions {
  recursive?: boolean;
  mode?: number;
}

export interface RmOptions {
  recursive?: boolean;
  force?: boolean;
}

export interface RenameOptions {
  /**
   * Swap the two names atomically (renameat2 RENAME_EXCHANGE): both must exist; they may be
   * of any type, a directory keeps its subtree.
   */
  exchange?: boolean;
}

export interface WriteOptions {
  /** Fail with EEXIST if the path exists (O_CREAT|O_EXCL). */
  exclusive?: boolean;
  /** Permission bits for a new file (default 0o644). */
  mode?: number;
  /** Create missing parent directories. */
  parents?: boolean;
  /**
   * The modification (and change) time to record instead of now: a write-back that stores
   * writes made earlier keeps their time (a mount's flush). The change time stays later when
   * the node changed after it (a link or chmod while the writes waited).
   */
  mtime?: Timespec;
}

/** Options of pwrite and truncate. */
export type ContentOptions = Pick<WriteOptions, "mtime">;

export interface ReadOptions {
  /** First byte to read (default 0). */
  offset?: number;
  /** Bytes to read (default: to the end). */
  length?: number;
}

/** A time argument: a Timespec, milliseconds since the epoch, or the POSIX UTIME_NOW / UTIME_OMIT. */
export type TimeArg = Timespec | number | "now" | "omit";

export interface GrepOptions {
  /** Treat `pattern` as a JavaScript regular expression (default: a literal string). */
  regex?: boolean;
  ignoreCase?: boolean;
  /** Lines of context before and after each match. */
  context?: number;
  /** Stop after this many matches (default 1000). */
  limit?: number;
  /** Only files whose path relative to the searched directory matches this glob (as `find`). */
  glob?: string;
}

export interface GrepMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
  before: string[];
  after: string[];
}

export interface DiskUsage {
  bytes: number;
  files: number;
  dirs: number;
}

export interface Usage {
  usedBytes: number;
  quotaBytes: number | null;
}

/** One entry of the change feed: the current state of a path changed after the cursor, or its deletion. */
export interface Change {
  path: string;
  rev: number;
  /** Absent when the path no longer exists. */
  stat?: Stat;
  /** For symlinks: the target. */
  target?: string;
  /** For files: the sha-256 of each chunk in order (empty string = a hole). */
  chunks?: string[];
}

export interface ChangesPage {
  changes: Change[];
  /** `cursors[i]` resumes right after `changes[i]` (a stream can hand out a cursor per change). */
  cursors: string[];
  /** Opaque cursor to resume after the last change returned. */
  cursor: string;
  /** True when more changes follow this page. */
  more: boolean;
  /** True when the given cursor is older than what was pruned: the caller must resync from scratch (cursor "0"). */
  reset: boolean;
}

export interface CheckpointInfo {
  name: string;
  rev: number;
  createdAt: string;
}
