/**
 * Branches and checkout: list, create and delete local branches, and switch the working tree
 * to a branch or commit (refusing, like git, to overwrite local changes unless forced).
 */
import {
  currentBranch,
  deleteBranch,
  branch as gitBranch,
  checkout as gitCheckout,
  listBranches,
} from "isomorphic-git";
import { tryResolve } from "./history.ts";
import { GitError, type Repo } from "./repo.ts";

/** Local branches and the current one. */
export interface BranchList {
  branches: string[];
  /** Undefined on a detached HEAD. */
  current: string | undefined;
}

/** The local branches. */
export async function branches(repo: Repo): Promise<BranchList> {
  const names = await listBranches({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir });
  const current = await currentBranch({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir });
  return { branches: names.sort(), current: current === undefined ? undefined : current };
}

/** Creates branch `name` at `startPoint` (default HEAD) without switching to it. */
export async function createBranch(repo: Repo, name: string, startPoint = "HEAD"): Promise<void> {
  const oid = await tryResolve(repo, startPoint);
  if (oid === undefined) throw new GitError(`not a valid object name: '${startPoint}'`);
  try {
    await gitBranch({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, ref: name, object: oid });
  } catch (err) {
    throw new GitError(gitMessage(err, `cannot create branch '${name}'`));
  }
}

/** Deletes local branch `name` (not the current one). */
export async function removeBranch(repo: Repo, name: string): Promise<void> {
  const { current } = await branches(repo);
  if (current === name) throw new GitError(`cannot delete branch '${name}': it is checked out`);
  try {
    await deleteBranch({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, ref: name });
  } catch (err) {
    throw new GitError(gitMessage(err, `branch '${name}' not found`));
  }
}

/**
 * Switches to `ref` (a branch, or a commit for a detached HEAD). With `create`, first makes
 * branch `ref` at HEAD. Local changes that would be overwritten are a GitError unless `force`.
 */
export async function checkout(
  repo: Repo,
  ref: string,
  options: { create?: boolean; force?: boolean } = {},
): Promise<void> {
  if (options.create) {
    const head = await tryResolve(repo, "HEAD");
    if (head === undefined) {
      // No commit yet: just point HEAD at the new (unborn) branch, as `git checkout -b` does.
      await repo.fs.promises.writeFile(repo.gitdir.concat("/HEAD"), `ref: refs/heads/${ref}\n`);
      return;
    }
    await createBranch(repo, ref, head);
  }
  try {
    await gitCheckout({
      fs: repo.fs,
      dir: repo.dir,
      gitdir: repo.gitdir,
      cache: repo.cache,
      ref,
      force: options.force ?? false,
    });
  } catch (err) {
    throw new GitError(gitMessage(err, `pathspec '${ref}' did not match any file(s) known to git`));
  }
}

/** The message of an isomorphic-git error, or `fallback` for a missing ref. */
export function gitMessage(err: unknown, fallback: string): string {
  const code = (err as { code?: unknown }).code;
  if (code === "NotFoundError") return fallback;
  return err instanceof Error ? err.message : String(err);
}
