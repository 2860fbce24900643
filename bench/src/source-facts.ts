/**
 * What source a run measured: the git commit, whether vfs/ or bench/ had uncommitted changes,
 * and a hash of vfs/src taken before and after the run. node:sqlite imports vfs/src when the
 * process starts and the Worker is bundled when its backend starts, so a vfs edited in between
 * (a busy monorepo) would give the backends different code; the hashes make that visible.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The source facts recorded in the JSON document. */
export interface SourceFacts {
  commit: string;
  dirty: boolean;
  /** sha-256 over vfs/src (paths and contents, tests left out) when the run began and when it ended. */
  vfsSrcSha256: { start: string; end: string };
}

/** sha-256 over every file under `dir` but tests (`*.test.ts`): sorted relative paths and their bytes. */
export function treeHash(dir: string): string {
  const hash = createHash("sha256");
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith(".test.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    hash.update(`${relative(dir, file)}\0`);
    hash.update(readFileSync(file));
  }
  return hash.digest("hex");
}

/** The commit and dirty flag of `repoRoot`; `startHash` is treeHash(vfs/src) taken at the start. */
export function sourceFacts(repoRoot: string, startHash: string): SourceFacts {
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  const vfsSrcSha256 = { start: startHash, end: treeHash(join(repoRoot, "vfs", "src")) };
  try {
    return {
      commit: git("rev-parse", "HEAD"),
      dirty: git("status", "--porcelain", "--", "vfs", "bench") !== "",
      vfsSrcSha256,
    };
  } catch {
    return { commit: "unknown", dirty: true, vfsSrcSha256 };
  }
}
