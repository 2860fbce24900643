/**
 * The request and response bodies of docs/API.md as TypeScript types: what the Worker answers
 * and what the SDK returns. The Worker's handlers declare their answers with these types, so a
 * field added on one side is seen by the other.
 */

/** Outbound network policy of a computer's runtimes. */
export type Egress = "none" | "all" | { allow: string[] };

/** `PUT /v1/computers/:id` body. */
export interface ComputerSettings {
  quotaBytes?: number;
  egress?: Egress;
}

/** A computer as the API shows it. */
export interface ComputerInfo {
  id: string;
  createdAt: string;
  quotaBytes: number | null;
  usedBytes: number;
  egress: Egress;
}

/** A page of `GET /v1/computers`. */
export interface ComputerPage {
  computers: ComputerInfo[];
  next?: string;
}

/** A file type as the vfs names it. */
export type FileType = "file" | "dir" | "symlink" | "fifo" | "socket" | "char" | "block";

/** Seconds since the epoch (negative before 1970) and nanoseconds 0–999999999. */
export interface Timespec {
  sec: number;
  nsec: number;
}

/** The answer of the `stat` op: every attribute `stat(2)` shows. */
export interface StatJson {
  path: string;
  type: FileType;
  size: number;
  /** Permission bits with setuid/setgid/sticky, octal (`"0644"`). */
  mode: string;
  uid: number;
  gid: number;
  nlink: number;
  ino: number;
  /** Linux `dev_t` of a char/block device; 0 for other types. */
  rdev: number;
  rdevMajor: number;
  rdevMinor: number;
  /** Bytes of stored content (holes of a sparse file do not count). */
  allocated: number;
  /** ISO-8601 with millisecond precision; exact times are in `timespec`. */
  mtime: string;
  atime: string;
  ctime: string;
  timespec: { atime: Timespec; mtime: Timespec; ctime: Timespec };
  /** A symlink's target (stat with `follow: false`, symlink and rename of a symlink). */
  target?: string;
}

/** One entry of a directory listing. */
export interface EntryJson {
  name: string;
  type: FileType;
  size: number;
  mode: string;
  mtime: string;
}

/** A page of a directory listing (`GET .../files/<dir>` and the `readdir` op). */
export interface EntryPage {
  entries: EntryJson[];
  /** Pass as `after` to get the next page; absent on the last one. */
  next?: string;
}

/** `PUT .../files/<path>` answer. */
export interface WrittenFile {
  path: string;
  size: number;
  mtime: string;
  mode: string;
}

/** A time argument of `utimes`: milliseconds, ISO-8601, `{ sec, nsec }`, `"now"` or `"omit"`. */
export type TimeInput = number | string | Timespec | "now" | "omit";

/** One grep match (`grep` op). */
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
  /** Context lines before and after the match. */
  before: string[];
  after: string[];
}

/** Every op of `POST .../fs` with its body. */
export interface FsOps {
  mkdir: { path: string; recursive?: boolean; mode?: string | number };
  rename: { from: string; to: string; exchange?: boolean };
  symlink: { target: string; path: string };
  link: { existing: string; path: string };
  chmod: { path: string; mode: string | number };
  chown: { path: string; uid: number; gid: number };
  utimes: { path: string; atime?: TimeInput; mtime?: TimeInput };
  truncate: { path: string; length: number };
  rm: { path: string; recursive?: boolean; force?: boolean };
  stat: { path: string; follow?: boolean };
  readdir: { path: string; after?: string; limit?: number };
  readlink: { path: string };
  realpath: { path: string };
  du: { path: string };
  find: { path: string; glob: string; limit?: number };
  grep: {
    path: string;
    pattern: string;
    regex?: boolean;
    ignoreCase?: boolean;
    context?: number;
    limit?: number;
    /** Only files whose path relative to `path` matches this glob. */
    glob?: string;
  };
  listxattr: { path: string; follow?: boolean };
  getxattr: { path: string; name: string; follow?: boolean };
  setxattr: { path: string; name: string; value: string; flag?: "create" | "replace"; follow?: boolean };
  removexattr: { path: string; name: string; follow?: boolean };
}

/** What each op of `POST .../fs` answers. */
export interface FsResults {
  mkdir: StatJson;
  rename: StatJson & { from: string };
  symlink: StatJson & { target: string };
  link: StatJson;
  chmod: StatJson;
  chown: StatJson;
  utimes: StatJson;
  truncate: StatJson;
  rm: { path: string };
  stat: StatJson;
  readdir: EntryPage;
  readlink: { path: string; target: string };
  realpath: { path: string };
  du: { path: string; bytes: number; files: number; dirs: number };
  find: { paths: string[] };
  grep: { matches: GrepMatch[] };
  listxattr: { path: string; names: string[] };
  getxattr: { path: string; name: string; value: string };
  setxattr: { path: string; name: string; size: number };
  removexattr: { path: string; name: string };
}

/** The name of an op of `POST .../fs`. */
export type FsOpName = keyof FsOps;

/** The body of `POST .../fs` for op `K`. */
export type FsOpBody<K extends FsOpName> = { op: K } & FsOps[K];

/** The runtimes of docs/API.md. */
export type RuntimeName = "container" | "shell" | "js";

/** `POST .../exec` body. */
export interface ExecRequest {
  runtime: RuntimeName;
  /** A command (container), a bash script (shell) or an ES module's text (js). */
  source: string;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  /** js only: passed to the module's default export. */
  input?: unknown;
  timeoutMs?: number;
  /** Container only: a background process that outlives the request (answered 202, running). */
  detach?: boolean;
}

/** How an exec ended; `running` while it has not. */
export type ExecStatus = "running" | "completed" | "failed" | "timeout" | "killed";

/** Where sync stood when a result was produced. */
export interface SyncInfo {
  status: "complete" | "pending" | "none";
  rev?: number;
  conflicts: unknown[];
}

/** An exec's result (also while running: `status: "running"`). */
export interface ExecResult {
  id: string;
  runtime: RuntimeName;
  status: ExecStatus;
  /** Null when the process never ran or did not exit by itself. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The journal kept only the first 1 MiB of output. */
  truncated: boolean;
  /** js: the default export's return value. */
  value?: unknown;
  durationMs: number;
  sync: SyncInfo;
  createdAt: string;
  /** Seq of the last output event (-1: none yet). */
  lastSeq: number;
  /** Why the exec could not run or lost its runtime. */
  error?: { code: string; message: string };
  /** Present (true) on a background process (`detach: true`). */
  detached?: true;
}

/** An exec as `GET .../exec` lists it: without its output and value. */
export type ExecSummary = Omit<ExecResult, "stdout" | "stderr" | "value">;

/** One output piece of a streamed exec. */
export interface OutputEvent {
  seq: number;
  stream: "stdout" | "stderr";
  data: string;
}

/** `POST .../checkpoints` answer and `GET .../checkpoints` entries. */
export interface Checkpoint {
  name: string;
  rev: number;
  createdAt: string;
}

/** `POST .../checkpoints/:name/restore` answer. */
export interface Restored {
  name: string;
  rev: number;
}

/** `POST .../fork` body. */
export interface ForkRequest {
  to: string;
  checkpoint?: string;
}

/** A token's scope: `rw` may write, `ro` only read. */
export type TokenScope = "ro" | "rw";

/** `POST .../tokens` body and answer. */
export interface TokenRequest {
  scope: TokenScope;
  ttlSeconds?: number;
}

/** An issued computer token. */
export interface IssuedToken {
  token: string;
  expiresAt: string;
}

/** `POST .../artifacts` body. */
export interface PublishRequest {
  path: string;
  name?: string;
  version?: string;
  ttlSeconds?: number;
}

/** One file of an artifact's manifest. */
export interface ArtifactFile {
  path: string;
  size: number;
  sha256: string;
}

/** A published artifact version (`POST .../artifacts` answer). */
export interface PublishedArtifact {
  name: string;
  version: string;
  type: "file" | "dir";
  /** Signed public link: the file itself, or the directory's index. */
  url: string;
  expiresAt: string;
  files: ArtifactFile[];
  bytes: number;
}

/** One artifact name with its newest version (`GET /v1/artifacts`). */
export interface ArtifactSummary {
  name: string;
  computer: string;
  latest: string;
  versions: number;
  updatedAt: string;
}

/** A page of `GET /v1/artifacts`. */
export interface ArtifactPage {
  artifacts: ArtifactSummary[];
  next?: string;
}

/** One version of an artifact with a freshly signed link. */
export interface ArtifactVersion {
  version: string;
  createdAt: string;
  type: "file" | "dir";
  files: number;
  bytes: number;
  entry: string;
  url: string;
  expiresAt: string;
}

/** `GET /v1/artifacts/:name` answer. */
export interface ArtifactDetail {
  name: string;
  computer: string;
  versions: ArtifactVersion[];
}

/** One change of the change feed: the path's state now, or that it is gone. */
export interface ChangeJson {
  rev: number;
  /** Resumes the feed right after this change. */
  cursor: string;
  path: string;
  event: "changed" | "deleted";
  type?: FileType;
  size?: number;
  mode?: string;
  mtime?: string;
  /** A symlink's target. */
  target?: string;
}

/** A page of `GET .../changes`; a filtered page may be empty while `more` is true. */
export interface ChangesPage {
  changes: ChangeJson[];
  /** Resumes after the last change read (also past filtered-out ones). */
  cursor: string;
  more: boolean;
}

/** `POST .../terminals` body. */
export interface TerminalRequest {
  runtime?: "container" | "shell";
  cols: number;
  rows: number;
  cwd?: string;
  env?: Record<string, string>;
  idleTimeoutSeconds?: number;
}

/** A terminal's state. */
export interface TerminalInfo {
  id: string;
  runtime: "container" | "shell";
  cols: number;
  rows: number;
  createdAt: string;
  status: "running" | "exited";
  exitCode: number | null;
  signal?: string;
  /** Viewers attached right now. */
  attached: number;
}
