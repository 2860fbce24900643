/**
 * `git commit` and `git log`: commits the index with an identity resolved like git does
 * (identity.ts), and lists commits from a ref with author, time and message.
 */
import { commit as gitCommit, log as gitLog, resolveRef } from "isomorphic-git";
import { type GitIdentity, resolveIdentity } from "./identity.ts";
import { GitError, type Repo } from "./repo.ts";
import { matrix } from "./staging.ts";

/** Arguments of `commit`. */
export interface CommitOptions {
  message: string;
  author?: Partial<GitIdentity>;
  committer?: Partial<GitIdentity>;
  /** GIT_AUTHOR_* / GIT_COMMITTER_* are read from here. */
  env?: Record<string, string | undefined>;
  /** Commit even if the tree equals the parent's (git's --allow-empty). */
  allowEmpty?: boolean;
}

/** A commit as `log` lists it. */
export interface LogEntry {
  oid: string;
  message: string;
  parents: string[];
  author: Required<GitIdentity>;
  committer: Required<GitIdentity>;
}

/** The oid `ref` points to, or undefined if it does not resolve (e.g. no commit yet). */
export async function tryResolve(repo: Repo, ref: string): Promise<string | undefined> {
  try {
    return await resolveRef({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, ref });
  } catch {
    return undefined;
  }
}

/**
 * Commits the index; returns the new commit's oid. GitError `nothing to commit` when the
 * index equals HEAD (unless `allowEmpty`), `empty commit message` for a blank message.
 */
export async function commit(repo: Repo, options: CommitOptions): Promise<string> {
  if (options.message.trim() === "") throw new GitError("Aborting commit due to empty commit message.");
  if (!options.allowEmpty) {
    const rows = await matrix(repo);
    const staged = rows.some(([, h, w, s]) =>
      h === 0 ? s !== 0 : s === 0 || s === 3 || (s === 2 && w === 2),
    );
    if (!staged) throw new GitError("nothing to commit, working tree clean or nothing added to commit");
  }
  const env = options.env ?? {};
  const author = await resolveIdentity(repo, "author", options.author, env);
  const committer = await resolveIdentity(repo, "committer", options.committer, env, author);
  const message = options.message.endsWith("\n") ? options.message : `${options.message}\n`;
  return gitCommit({
    fs: repo.fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    message,
    author,
    committer,
  });
}

/** Commits reachable from `ref` (default HEAD), newest first, at most `depth`. Empty before the first commit. */
export async function log(repo: Repo, options: { ref?: string; depth?: number } = {}): Promise<LogEntry[]> {
  const ref = options.ref ?? "HEAD";
  if ((await tryResolve(repo, ref)) === undefined) {
    if (ref === "HEAD") return [];
    throw new GitError(`unknown revision '${ref}'`);
  }
  const commits = await gitLog({
    fs: repo.fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    ref,
    ...(options.depth === undefined ? {} : { depth: options.depth }),
  });
  return commits.map(({ oid, commit: c }) => ({
    oid,
    message: c.message,
    parents: c.parent,
    author: c.author,
    committer: c.committer,
  }));
}
