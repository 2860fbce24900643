/**
 * A repository handle for the git commands: the isomorphic-git fs client over a GitFs, the
 * working tree and `.git` directory, and one object cache shared by the calls of a command.
 * Also `init` and finding the repository a path is in.
 */

import { findRoot, init as gitInit } from "isomorphic-git";
import { lexicalPath } from "../guest/lexical-path.ts";
import type { GitFs } from "./git-fs.ts";
import { type IsomorphicGitFs, isomorphicGitFs } from "./node-fs.ts";

/** A failure the user caused (no repository, bad ref, nothing to commit): not our fault. */
export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GitError";
  }
}

/** An open repository. */
export interface Repo {
  /** The GitFs the repository lives on. */
  raw: GitFs;
  /** The same filesystem as isomorphic-git's `fs` client. */
  fs: IsomorphicGitFs;
  /** Working tree (absolute, no trailing slash). */
  dir: string;
  /** `${dir}/.git`. */
  gitdir: string;
  /** isomorphic-git's object cache, shared by the calls of one command. */
  cache: object;
}

/** Normalises an absolute path: collapses `//`, `.` and `..`, drops a trailing slash. */
export function normalizeAbsolute(path: string): string {
  if (!path.startsWith("/")) throw new GitError(`not an absolute path: ${path}`);
  return lexicalPath(path);
}

/** Resolves `path` against `cwd` (absolute) into a normalised absolute path. */
export function resolvePath(cwd: string, path: string): string {
  return normalizeAbsolute(path.startsWith("/") ? path : `${cwd}/${path}`);
}

/** The repository whose working tree is exactly `dir` (no search upwards). */
export function repoAt(fs: GitFs, dir: string): Repo {
  const root = normalizeAbsolute(dir);
  return {
    raw: fs,
    fs: isomorphicGitFs(fs),
    dir: root,
    gitdir: root === "/" ? "/.git" : `${root}/.git`,
    cache: {},
  };
}

/**
 * The repository containing `path` (searching upwards like git does); GitError
 * `not a git repository` when there is none.
 */
export async function openRepo(fs: GitFs, path: string): Promise<Repo> {
  const client = isomorphicGitFs(fs);
  let root: string;
  try {
    root = await findRoot({ fs: client, filepath: normalizeAbsolute(path) });
  } catch {
    throw new GitError("not a git repository (or any of the parent directories): .git");
  }
  return repoAt(fs, root);
}

/** `git init`: creates `dir` (and parents) and an empty repository in it; re-running is harmless. */
export async function init(fs: GitFs, dir: string, defaultBranch = "main"): Promise<Repo> {
  const repo = repoAt(fs, dir);
  await repo.fs.promises.mkdir(repo.dir, { recursive: true });
  await gitInit({ fs: repo.fs, dir: repo.dir, defaultBranch });
  return repo;
}

/** `dir`-relative form of an absolute path inside the working tree ("" for the root). */
export function repoRelative(repo: Repo, absolute: string): string {
  const path = normalizeAbsolute(absolute);
  if (path === repo.dir) return "";
  const prefix = repo.dir === "/" ? "/" : `${repo.dir}/`;
  if (!path.startsWith(prefix)) throw new GitError(`'${absolute}' is outside repository at '${repo.dir}'`);
  return path.slice(prefix.length);
}
