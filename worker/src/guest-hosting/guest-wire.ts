/**
 * The Workers RPC interfaces between the Computer DO and its Dynamic Workers (the shell and js
 * runtimes), in one place: the entrypoints the guest bundles export, and the capabilities the DO
 * passes BY REFERENCE into each call (filesystem, output, services, kill switch). Both sides
 * compile against this file; the guest imports types only.
 */

/**
 * Paths in `GuestFsOp`s are absolute vfs paths: `/` is the workspace root (`/workspace` in the
 * guest). `rm` is Node's (a directory needs `recursive`) unless `emptyDirs` lets it remove an
 * empty directory as just-bash's filesystems do.
 */
export type GuestFsOp =
  | { op: "stat"; path: string }
  | { op: "lstat"; path: string }
  | { op: "exists"; path: string }
  | { op: "readFile"; path: string; offset?: number; length?: number }
  | { op: "writeFile"; path: string; data: Uint8Array | string; mode?: number; exclusive?: boolean }
  | { op: "appendFile"; path: string; data: Uint8Array | string; mode?: number }
  | { op: "truncate"; path: string; length: number }
  | { op: "readdir"; path: string }
  | { op: "mkdir"; path: string; recursive?: boolean; mode?: number }
  | { op: "rm"; path: string; recursive?: boolean; force?: boolean; emptyDirs?: boolean }
  | { op: "rmdir"; path: string }
  | { op: "unlink"; path: string }
  | { op: "rename"; from: string; to: string }
  | { op: "copy"; from: string; to: string; recursive?: boolean; exclusive?: boolean }
  | { op: "chmod"; path: string; mode: number }
  | { op: "symlink"; target: string; path: string }
  | { op: "link"; existing: string; path: string }
  | { op: "readlink"; path: string }
  | { op: "realpath"; path: string }
  | { op: "utimes"; path: string; atimeMs: number; mtimeMs: number };

/** The op names. */
export type GuestFsOpName = GuestFsOp["op"];

/** File types as the vfs names them. */
export type GuestFileType = "file" | "dir" | "symlink" | "fifo" | "socket" | "char" | "block";

/** A stat as it crosses the wire (times in milliseconds since the epoch, with sub-ms precision). */
export interface GuestStat {
  type: GuestFileType;
  mode: number;
  size: number;
  ino: number;
  nlink: number;
  uid: number;
  gid: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** One directory entry, with enough of its stat to answer `ls -l` / find without more calls. */
export interface GuestDirEntry {
  name: string;
  type: GuestFileType;
  mode: number;
  size: number;
  ino: number;
  mtimeMs: number;
}

/** A filesystem error with its POSIX code; `path` is the vfs path it concerns. */
export interface GuestFsError {
  code: string;
  message: string;
  syscall?: string;
  path?: string;
}

/** The outcome of one op: its value (see GuestFsApi.run for each op's value) or its error. */
export type GuestFsReply = { ok: true; value?: unknown } | { ok: false; error: GuestFsError };

/**
 * The computer's filesystem, handed to one exec (an RpcTarget in the DO). Revoked when the exec
 * ends: every later call throws.
 */
export interface GuestFsApi {
  /**
   * Runs `ops` in order, each independently (a failure does not stop the ones after it), and
   * answers one reply per op. Values: stat/lstat → GuestStat; exists → boolean; readFile →
   * Uint8Array; readdir → GuestDirEntry[]; readlink/realpath → string; the rest → nothing.
   * One call is one RPC round trip however many ops it carries.
   */
  run(ops: GuestFsOp[]): GuestFsReply[];
}

/** One piece of output. */
export interface OutputPiece {
  stream: "stdout" | "stderr";
  data: string;
}

/** Receives an exec's output; the guest sends one call at a time, so pieces arrive in order. */
export interface GuestOutputApi {
  write(pieces: OutputPiece[]): void;
}

/** Result of a service call that runs like a command. */
export interface GuestCommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A service call's value or its error (code + message), so errors keep their code across RPC. */
export type GuestCallResult =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: string; message: string } };

/**
 * Trusted services the DO offers a guest (an RpcTarget in the DO, see guest-services.ts): git
 * and artifacts run next to the vfs, under the computer's egress policy.
 */
export interface GuestServicesApi {
  /** The shell's `git ARGS...` run in `cwd` (a /workspace path). */
  gitCommand(args: string[], cwd: string): Promise<GuestCommandResult>;
  /** The shell's `publish ARGS...` run in `cwd`. */
  publishCommand(args: string[], cwd: string): Promise<GuestCommandResult>;
  /** `computer:git`: calls one git function (`init`, `add`, `commit`, `log`, …) with its options. */
  git(method: string, options: unknown): Promise<GuestCallResult>;
  /** `computer:artifacts`: `publish({ path, name?, version?, ttlSeconds? })` → the published artifact. */
  artifacts(method: string, options: unknown): Promise<GuestCallResult>;
  /**
   * The shell's `html-to-markdown`: the DO checks the request and converts `request.html` with
   * turndown in a Dynamic Worker of its own (html-to-markdown.ts), so that turndown is no part
   * of every new shell isolate. The value is the Markdown, trimmed; EFBIG past
   * `maxOutputBytes`, E2BIG for input past the shell's limits, EINVAL for bad options.
   */
  htmlToMarkdown(request: HtmlToMarkdownRequest): Promise<GuestCallResult>;
}

/** turndown's options just-bash's html-to-markdown sets (its `-b`, `-c`, `-r`, `--heading-style`). */
export interface HtmlToMarkdownOptions {
  bulletListMarker?: string;
  codeBlockStyle?: string;
  fence?: string;
  hr?: string;
  headingStyle?: string;
}

/** One conversion of the shell's `html-to-markdown`. */
export interface HtmlToMarkdownRequest {
  html: string;
  options: HtmlToMarkdownOptions;
  /** Tags dropped with their content (`script`, `style`, `footer`). */
  remove: string[];
  /** Largest Markdown the guest takes, in UTF-8 bytes. */
  maxOutputBytes: number;
}

/** The html-to-markdown converter's Dynamic Worker (turndown-guest.ts), called by the DO. */
export interface TurndownGuestEntrypoint {
  /** The Markdown of `html` under turndown's `options`, `remove`'s tags dropped, trimmed. */
  convert(html: string, options: Record<string, string>, remove: string[]): string;
}

/** A guest's handle to stop the exec it runs (an RpcTarget in the guest, handed to the DO). */
export interface GuestKillSwitch {
  kill(): void;
}

/** The DO's side of one exec, passed to the guest as its only way out. */
export interface GuestCapabilities {
  fs: GuestFsApi;
  output: GuestOutputApi;
  services: GuestServicesApi;
  /** The guest calls this once with its kill switch before it starts running user code. */
  started(killSwitch: GuestKillSwitch): void;
}

/** Limits of one shell exec. */
export interface ShellLimits {
  timeoutMs: number;
  maxLoopIterations: number;
  maxCommandCount: number;
  maxOutputBytes: number;
}

/** What the shell guest runs. */
export interface ShellRequest {
  script: string;
  /** A /workspace path. */
  cwd: string;
  env: Record<string, string>;
  stdin: string | undefined;
  /** True when the computer's egress policy lets `curl` reach anything at all. */
  network: boolean;
  limits: ShellLimits;
}

/** How a guest exec ended. `limit`: an execution limit (loop/command cap, output cap) stopped it. */
export interface GuestOutcome {
  status: "completed" | "failed" | "timeout" | "killed";
  exitCode: number | null;
  value?: unknown;
  /** The output cap was reached: the guest stopped forwarding output. */
  truncated: boolean;
  error?: { code: string; message: string };
  /** Runs the guest's isolate has served, this one included (the shell guest: `guestIsolateRuns`). */
  isolateRuns?: number;
}

/** What the js guest runs: the main module name and the call's arguments. */
export interface JsRequest {
  /** Module name of the exec's source in the loader's module map. */
  main: string;
  input: unknown;
  /** A /workspace path. */
  cwd: string;
  env: Record<string, string>;
  stdin: string | undefined;
  execId: string;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** The shell guest's entrypoint. */
export interface ShellGuestEntrypoint {
  /** A spare's warm-up: runs `true` in a scratch tree (no capabilities, nothing of a computer). */
  warm(): Promise<void>;
  run(request: ShellRequest, caps: GuestCapabilities): Promise<GuestOutcome>;
}

/** The js guest's entrypoint. */
export interface JsGuestEntrypoint {
  run(request: JsRequest, caps: GuestCapabilities): Promise<GuestOutcome>;
}

/**
 * The functions the js guest's `node:fs/promises` exports (the DO generates the module's
 * re-export list from this; the guest's implementation is typed against it).
 */
export const FS_PROMISES_FUNCTIONS = [
  "access",
  "appendFile",
  "chmod",
  "copyFile",
  "cp",
  "link",
  "lstat",
  "mkdir",
  "mkdtemp",
  "readFile",
  "readdir",
  "readlink",
  "realpath",
  "rename",
  "rm",
  "rmdir",
  "stat",
  "symlink",
  "truncate",
  "unlink",
  "utimes",
  "writeFile",
] as const;

/** The functions `computer:git` exports. */
export const GIT_FUNCTIONS = [
  "init",
  "add",
  "commit",
  "log",
  "status",
  "diff",
  "clone",
  "branch",
  "checkout",
] as const;

/** The functions `computer:artifacts` exports. */
export const ARTIFACT_FUNCTIONS = ["publish"] as const;
