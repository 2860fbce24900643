/**
 * `git add`: stages what changed under the given paths — new and modified files are added,
 * deleted ones removed from the index (git 2's `git add <path>` and `git add -A`). Ignored
 * untracked files are left alone, as git does.
 */
import { add as gitAdd, remove as gitRemove, statusMatrix } from "isomorphic-git";
import { GitError, type Repo } from "./repo.ts";

/** One statusMatrix row: [filepath, head, workdir, stage]. */
export type StatusRow = [string, 0 | 1, 0 | 1 | 2, 0 | 1 | 2 | 3];

/** The status matrix of `repo`, optionally limited to repo-relative `paths` (files or directories). */
export async function matrix(repo: Repo, paths?: string[]): Promise<StatusRow[]> {
  const rows = await statusMatrix({
    fs: repo.fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    ...(paths === undefined ? {} : { filepaths: paths }),
  });
  return rows as StatusRow[];
}

function covers(path: string, file: string): boolean {
  return path === "" || file === path || file.startsWith(`${path}/`);
}

/** What `add` did. */
export interface AddResult {
  added: string[];
  removed: string[];
}

/**
 * Stages every change under `paths` (repo-relative; `[""]` or `"all"` is the whole tree).
 * A path that matches neither a file nor an index entry is GitError `pathspec ... did not
 * match any files` and nothing is staged.
 */
export async function add(repo: Repo, paths: string[] | "all"): Promise<AddResult> {
  const all = paths === "all" || paths.includes("");
  const rows = await matrix(repo, all ? undefined : (paths as string[]));
  if (!all) {
    for (const path of paths as string[]) {
      if (rows.some(([file]) => covers(path, file))) continue;
      const exists = await repo.raw.lstat(`${repo.dir}/${path}`).then(
        () => true,
        () => false,
      );
      if (!exists) throw new GitError(`pathspec '${path}' did not match any files`);
    }
  }
  const added: string[] = [];
  const removed: string[] = [];
  for (const [file, , workdir, stage] of rows) {
    if (workdir === 0) {
      if (stage !== 0) removed.push(file);
    } else if (stage !== 2 && !(workdir === 1 && stage === 1)) {
      added.push(file);
    }
  }
  if (added.length > 0) {
    await gitAdd({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache, filepath: added });
  }
  if (removed.length > 0) {
    await gitRemove({
      fs: repo.fs,
      dir: repo.dir,
      gitdir: repo.gitdir,
      cache: repo.cache,
      filepath: removed,
    });
  }
  return { added, removed };
}
