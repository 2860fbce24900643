/**
 * The `computer:git` module's API: git commands over a GitFs with paths resolved against a
 * working directory, returning plain structured-clonable values (so the calls can cross Workers
 * RPC). The shell's `git` command (cli.ts) is a text front end to the same functions.
 */
import { type BranchList, branches, checkout, createBranch, removeBranch } from "./branches.ts";
import { clone, type FetchLike } from "./clone.ts";
import { type DiffOptions, diff, type FileDiff, formatDiff } from "./diff.ts";
import type { GitFs } from "./git-fs.ts";
import { commit, type LogEntry, log } from "./history.ts";
import type { GitIdentity } from "./identity.ts";
import { GitError, init, openRepo, type Repo, repoRelative, resolvePath } from "./repo.ts";
import { type AddResult, add } from "./staging.ts";
import { formatPorcelain, type StatusResult, status } from "./status.ts";

/** Where and how the commands run. */
export interface GitContext {
  fs: GitFs;
  /** Absolute directory relative `dir`s and paths start from (the runtime's cwd, e.g. `/workspace`). */
  cwd: string;
  /** GIT_AUTHOR_* / GIT_COMMITTER_* come from here. */
  env?: Record<string, string | undefined>;
  /** The fetch `clone` uses; absent when the computer's egress policy allows no network. */
  fetch?: FetchLike;
}

/** Every call takes `dir`: the repository or a directory inside it (default: cwd). */
export interface DirArg {
  dir?: string;
}

/** The git API bound to one context. */
export interface ComputerGit {
  /** `git init`: creates `dir` if needed; returns the working tree's absolute path. */
  init(args?: DirArg & { defaultBranch?: string }): Promise<{ dir: string }>;
  /** `git add`: `paths` (relative to `dir`) or everything with `all` / no paths. */
  add(args?: DirArg & { paths?: string | string[]; all?: boolean }): Promise<AddResult>;
  /** `git commit -m`. */
  commit(
    args: DirArg & {
      message: string;
      author?: Partial<GitIdentity>;
      committer?: Partial<GitIdentity>;
      allowEmpty?: boolean;
    },
  ): Promise<{ oid: string }>;
  /** `git log`: newest first. */
  log(args?: DirArg & { ref?: string; depth?: number }): Promise<LogEntry[]>;
  /** `git status`: entries plus the porcelain text. */
  status(args?: DirArg & { paths?: string[] }): Promise<StatusResult & { porcelain: string }>;
  /** Unified diff (default HEAD → working tree). */
  diff(args?: DirArg & Omit<DiffOptions, "paths"> & { paths?: string[] }): Promise<{
    files: FileDiff[];
    patch: string;
  }>;
  /** `git clone url [dir]` over http(s); `dir` defaults to the URL's last segment without `.git`. */
  clone(
    args: DirArg & { url: string; ref?: string; depth?: number; singleBranch?: boolean },
  ): Promise<{ dir: string }>;
  /** Lists branches; with `name` creates it (at `startPoint`) or, with `delete`, deletes it. */
  branch(args?: DirArg & { name?: string; startPoint?: string; delete?: boolean }): Promise<BranchList>;
  /** Switches to a branch or commit; `create` makes the branch first. */
  checkout(args: DirArg & { ref: string; create?: boolean; force?: boolean }): Promise<BranchList>;
}

/** The repository name `git clone` derives from a URL (`https://h/a/b.git` → `b`). */
export function cloneDirName(url: string): string {
  const path = url
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .replace(/\/\.git$/, "");
  const last = path.slice(path.lastIndexOf("/") + 1).replace(/\.git$/, "");
  if (last === "" || last === "." || last === "..")
    throw new GitError(`cannot guess a directory name from '${url}'`);
  return last;
}

function asList(paths: string | string[] | undefined): string[] | undefined {
  return typeof paths === "string" ? [paths] : paths;
}

/** Binds the git commands to `ctx`. */
export function computerGit(ctx: GitContext): ComputerGit {
  const env = ctx.env ?? {};
  const where = (dir: string | undefined) => resolvePath(ctx.cwd, dir ?? ".");
  const open = (dir: string | undefined) => openRepo(ctx.fs, where(dir));
  /** Repo-relative forms of `paths` given relative to `dir`. */
  const relative = (repo: Repo, dir: string | undefined, paths: string[]) =>
    paths.map((p) => repoRelative(repo, resolvePath(where(dir), p)));
  return {
    async init(args = {}) {
      const repo = await init(ctx.fs, where(args.dir), args.defaultBranch);
      return { dir: repo.dir };
    },
    async add(args = {}) {
      const repo = await open(args.dir);
      const paths = asList(args.paths);
      if (args.all || paths === undefined || paths.length === 0) return add(repo, "all");
      return add(repo, relative(repo, args.dir, paths));
    },
    async commit(args) {
      const repo = await open(args.dir);
      const oid = await commit(repo, { ...args, env });
      return { oid };
    },
    async log(args = {}) {
      return log(await open(args.dir), args);
    },
    async status(args = {}) {
      const repo = await open(args.dir);
      const result = await status(repo, args.paths && relative(repo, args.dir, args.paths));
      return { ...result, porcelain: formatPorcelain(result) };
    },
    async diff(args = {}) {
      const repo = await open(args.dir);
      const { paths, ...rest } = args;
      const files = await diff(repo, {
        ...rest,
        ...(paths ? { paths: relative(repo, args.dir, paths) } : {}),
      });
      return { files, patch: formatDiff(files) };
    },
    async clone(args) {
      if (ctx.fetch === undefined) {
        throw new GitError(`unable to access '${args.url}': network access is disabled for this computer`);
      }
      const dir = resolvePath(ctx.cwd, args.dir ?? cloneDirName(args.url));
      const repo = await clone(ctx.fs, dir, { ...args, fetch: ctx.fetch });
      return { dir: repo.dir };
    },
    async branch(args = {}) {
      const repo = await open(args.dir);
      if (args.name !== undefined) {
        if (args.delete) await removeBranch(repo, args.name);
        else await createBranch(repo, args.name, args.startPoint);
      }
      return branches(repo);
    },
    async checkout(args) {
      const repo = await open(args.dir);
      await checkout(repo, args.ref, args);
      return branches(repo);
    },
  };
}
