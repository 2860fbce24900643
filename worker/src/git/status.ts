/**
 * `git status` from isomorphic-git's status matrix: each changed path with git's two-letter
 * porcelain code (X = index vs HEAD, Y = working tree vs index), and the short and long
 * text forms `git status --porcelain` / `git status` print.
 */
import { currentBranch } from "isomorphic-git";
import type { Repo } from "./repo.ts";
import { matrix, type StatusRow } from "./staging.ts";

/** One changed path: `index` and `worktree` are porcelain letters (" ", "M", "A", "D", "?"). */
export interface StatusEntry {
  path: string;
  index: string;
  worktree: string;
}

/** The status of a repository. */
export interface StatusResult {
  /** Current branch, or undefined on a detached HEAD. */
  branch: string | undefined;
  /** Changed paths in path order; untracked ones have index and worktree "?". */
  entries: StatusEntry[];
}

/** The porcelain entries one matrix row stands for (a staged delete of a file still on disk is two). */
export function rowEntries([path, head, workdir, stage]: StatusRow): StatusEntry[] {
  if (stage === 0) {
    const out: StatusEntry[] = [];
    if (head === 1) out.push({ path, index: "D", worktree: " " });
    if (workdir !== 0) out.push({ path, index: "?", worktree: "?" });
    return out;
  }
  let index: string;
  if (head === 0) index = "A";
  else if (stage === 3 || (stage === 2 && workdir === 2)) index = "M";
  else index = " ";
  let worktree: string;
  if (workdir === 0) worktree = "D";
  else if (stage === 2) worktree = " ";
  else if (stage === 1) worktree = workdir === 1 ? " " : "M";
  else worktree = "M";
  return index === " " && worktree === " " ? [] : [{ path, index, worktree }];
}

/** The status of `repo`, optionally limited to repo-relative `paths`. */
export async function status(repo: Repo, paths?: string[]): Promise<StatusResult> {
  const rows = await matrix(repo, paths);
  const branch = await currentBranch({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir });
  return { branch: branch === undefined ? undefined : branch, entries: rows.flatMap(rowEntries) };
}

/** `git status --porcelain` lines: `XY path` (untracked `?? path`), one per line. */
export function formatPorcelain(result: StatusResult): string {
  return result.entries.map((e) => `${e.index}${e.worktree} ${e.path}\n`).join("");
}

const WORDS: Record<string, string> = { M: "modified", A: "new file", D: "deleted" };

function section(title: string, lines: string[]): string {
  return lines.length === 0 ? "" : `${title}\n${lines.map((l) => `\t${l}\n`).join("")}\n`;
}

/** `git status` (long form) text. */
export function formatLong(result: StatusResult): string {
  const staged = result.entries
    .filter((e) => e.index !== " " && e.index !== "?")
    .map((e) => `${`${WORDS[e.index] ?? e.index}:`.padEnd(12)}${e.path}`);
  const unstaged = result.entries
    .filter((e) => e.worktree !== " " && e.worktree !== "?")
    .map((e) => `${`${WORDS[e.worktree] ?? e.worktree}:`.padEnd(12)}${e.path}`);
  const untracked = result.entries.filter((e) => e.index === "?").map((e) => e.path);
  let text = result.branch === undefined ? "HEAD detached\n" : `On branch ${result.branch}\n`;
  const body =
    section("Changes to be committed:", staged) +
    section("Changes not staged for commit:", unstaged) +
    section("Untracked files:", untracked);
  text += body === "" ? "nothing to commit, working tree clean\n" : `\n${body}`;
  return text;
}
