/**
 * `git diff`: a unified diff between two of HEAD, the index and the working tree (isomorphic-git
 * has none). Walks the trees with isomorphic-git, skips what is untracked, diffs text with
 * jsdiff and prints git's headers; binary content (a NUL byte) is reported, not diffed.
 */
import { structuredPatch } from "diff";
import { readBlob, STAGE, TREE, type Walker, type WalkerEntry, WORKDIR, walk } from "isomorphic-git";
import { tryResolve } from "./history.ts";
import type { Repo } from "./repo.ts";

/** What a diff compares: `from` → `to`. Default HEAD → working tree (`git diff HEAD`). */
export interface DiffOptions {
  from?: "head" | "index";
  to?: "index" | "worktree";
  /** Repo-relative files or directories to limit the diff to. */
  paths?: string[];
  /** Lines of context (default 3). */
  context?: number;
}

/** One changed file. */
export interface FileDiff {
  path: string;
  status: "added" | "deleted" | "modified";
  binary: boolean;
  oldOid: string | undefined;
  newOid: string | undefined;
  oldMode: number | undefined;
  newMode: number | undefined;
  /** The whole unified diff of this file, git headers included. */
  patch: string;
}

const EMPTY = new Uint8Array(0);
const BINARY_PROBE = 8000;

function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE).includes(0);
}

function onPath(filepath: string, paths: string[] | undefined): "in" | "above" | "out" {
  if (paths === undefined || paths.includes("")) return "in";
  for (const p of paths) {
    if (filepath === p || filepath.startsWith(`${p}/`)) return "in";
    if (p.startsWith(`${filepath}/`)) return "above";
  }
  return "out";
}

async function blobOf(entry: WalkerEntry | null): Promise<WalkerEntry | null> {
  if (entry === null) return null;
  return (await entry.type()) === "blob" ? entry : null;
}

async function contentOf(
  repo: Repo,
  entry: WalkerEntry | null,
  oid: string | undefined,
): Promise<Uint8Array> {
  if (entry === null || oid === undefined) return EMPTY;
  const direct = await entry.content();
  if (direct !== undefined) return direct;
  // The index keeps only oids: read the blob from the object store.
  const { blob } = await readBlob({
    fs: repo.fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    oid,
  });
  return blob;
}

function range(start: number, lines: number): string {
  // Unified diff quirk: an empty range names the line before it.
  const first = lines === 0 ? start - 1 : start;
  return lines === 1 ? `${first}` : `${first},${lines}`;
}

function header(d: Omit<FileDiff, "patch">): string {
  const short = (oid: string | undefined) => (oid ?? "0".repeat(40)).slice(0, 7);
  const mode = (m: number | undefined) => (m ?? 0).toString(8).padStart(6, "0");
  let text = `diff --git a/${d.path} b/${d.path}\n`;
  if (d.status === "added") text += `new file mode ${mode(d.newMode)}\n`;
  if (d.status === "deleted") text += `deleted file mode ${mode(d.oldMode)}\n`;
  if (d.status === "modified" && d.oldMode !== d.newMode) {
    text += `old mode ${mode(d.oldMode)}\nnew mode ${mode(d.newMode)}\n`;
  }
  const sameMode = d.status === "modified" && d.oldMode === d.newMode ? ` ${mode(d.newMode)}` : "";
  if (d.oldOid !== d.newOid) text += `index ${short(d.oldOid)}..${short(d.newOid)}${sameMode}\n`;
  return text;
}

function body(
  d: Omit<FileDiff, "patch">,
  oldBytes: Uint8Array,
  newBytes: Uint8Array,
  context: number,
): string {
  if (d.oldOid === d.newOid) return "";
  const a = d.status === "added" ? "/dev/null" : `a/${d.path}`;
  const b = d.status === "deleted" ? "/dev/null" : `b/${d.path}`;
  if (d.binary) return `Binary files ${a} and ${b} differ\n`;
  const decoder = new TextDecoder();
  const patch = structuredPatch(a, b, decoder.decode(oldBytes), decoder.decode(newBytes), "", "", {
    context,
  });
  let text = `--- ${a}\n+++ ${b}\n`;
  for (const hunk of patch.hunks) {
    text += `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@\n`;
    for (const line of hunk.lines) text += `${line}\n`;
  }
  return text;
}

/** The changed files between `from` and `to`, in path order. */
export async function diff(repo: Repo, options: DiffOptions = {}): Promise<FileDiff[]> {
  const from = options.from ?? "head";
  const to = options.to ?? "worktree";
  const context = options.context ?? 3;
  const hasHead = (await tryResolve(repo, "HEAD")) !== undefined;
  // Walk order: [HEAD or nothing, STAGE, WORKDIR]; a missing HEAD reads as an empty tree.
  const trees: Walker[] = [hasHead ? TREE({ ref: "HEAD" }) : STAGE(), STAGE(), WORKDIR()];
  const results = await walk({
    fs: repo.fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    trees,
    map: async (filepath: string, entries: (WalkerEntry | null)[]) => {
      const [headRaw = null, stageRaw = null, workRaw = null] = entries;
      const head = hasHead ? headRaw : null;
      if (filepath === ".") return undefined;
      const where = onPath(filepath, options.paths);
      if (where === "out") return null;
      const tracked = head !== null || stageRaw !== null;
      // Untracked directories (node_modules, build output) are never descended into.
      if (!tracked) return null;
      if (where === "above") return undefined;
      const sides = {
        head: await blobOf(head),
        index: await blobOf(stageRaw),
        worktree: await blobOf(workRaw),
      };
      const oldEntry = sides[from];
      const newEntry = sides[to];
      if (oldEntry === null && newEntry === null) return undefined;
      const oldOid = oldEntry === null ? undefined : await oldEntry.oid();
      const newOid = newEntry === null ? undefined : await newEntry.oid();
      const oldMode = oldEntry === null ? undefined : await oldEntry.mode();
      const newMode = newEntry === null ? undefined : await newEntry.mode();
      if (oldOid === newOid && oldMode === newMode) return undefined;
      const oldBytes = await contentOf(repo, oldEntry, oldOid);
      const newBytes = await contentOf(repo, newEntry, newOid);
      const status = oldEntry === null ? "added" : newEntry === null ? "deleted" : "modified";
      const meta = {
        path: filepath,
        status,
        binary: isBinary(oldBytes) || isBinary(newBytes),
        oldOid,
        newOid,
        oldMode,
        newMode,
      } satisfies Omit<FileDiff, "patch">;
      return { ...meta, patch: header(meta) + body(meta, oldBytes, newBytes, context) };
    },
  });
  return (results as FileDiff[]).sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** The whole diff as `git diff` prints it. */
export function formatDiff(files: FileDiff[]): string {
  return files.map((f) => f.patch).join("");
}
