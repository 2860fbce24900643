/**
 * House-style file check run by `npm run check`: every file and folder name under the
 * component folders is kebab-case, no .ts file is longer than 500 lines, no import crosses
 * a package boundary except through the package's exports (check-boundaries.ts), and the
 * pieces with one owner are defined only there (check-owners.ts).
 * Lists the files git knows about (tracked or not ignored), prints offenders, exits 1 on any.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { checkBoundaries } from "./check-boundaries.ts";
import { checkOwners } from "./check-owners.ts";

/** Top-level folders whose names are checked. */
export const CHECKED_ROOTS = [
  "vfs",
  "worker",
  "computerd",
  "bench",
  "scripts",
  "sdk",
  "console",
  "infra",
  "images",
  "fleet",
  "test",
  "examples",
] as const;

/** A .ts file longer than this is a sign that two concepts share it (docs/STYLE.md). */
export const MAX_TS_LINES = 500;

/** Names that are conventionally not kebab-case. */
const ALLOWED_NAMES = new Set(["Makefile", "Dockerfile"]);

const KEBAB_PART = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UPPER_DOC = /^[A-Z0-9]+(?:[-_][A-Z0-9]+)*(?:\.(?:md|txt))?$/;

/**
 * True if `name` (one path segment) is acceptable: dot-separated kebab-case parts
 * (`write-buffer.test.ts`, `.dev.vars`), an upper-case doc name (`README.md`, `API-DRAFT.md`)
 * or a conventional name like `Makefile`.
 */
export function isKebabName(name: string): boolean {
  if (ALLOWED_NAMES.has(name) || UPPER_DOC.test(name)) return true;
  const parts = (name.startsWith(".") ? name.slice(1) : name).split(".");
  return parts.every((part) => KEBAB_PART.test(part));
}

/** One reason a file breaks the house rules. */
export interface Offence {
  path: string;
  problem: string;
}

/** Checks repo-relative `paths`; `readLines` returns a file's line count. */
export function findOffences(paths: readonly string[], readLines: (path: string) => number): Offence[] {
  const offences: Offence[] = [];
  const reportedDirs = new Set<string>();
  for (const path of paths) {
    const segments = path.split("/");
    const root = segments[0];
    if (root === undefined || !(CHECKED_ROOTS as readonly string[]).includes(root)) continue;
    for (let i = 1; i < segments.length; i++) {
      const segment = segments[i] ?? "";
      if (isKebabName(segment)) continue;
      const where = segments.slice(0, i + 1).join("/");
      const isDir = i < segments.length - 1;
      if (isDir && reportedDirs.has(where)) continue;
      if (isDir) reportedDirs.add(where);
      offences.push({ path: where, problem: `${isDir ? "folder" : "file"} name is not kebab-case` });
    }
    if (path.endsWith(".ts")) {
      const lines = readLines(path);
      if (lines > MAX_TS_LINES) offences.push({ path, problem: `${lines} lines (max ${MAX_TS_LINES})` });
    }
  }
  return offences;
}

function countLines(absolutePath: string): number {
  const text = readFileSync(absolutePath, "utf8");
  if (text.length === 0) return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

function listFiles(repoRoot: string): string[] {
  const out = execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", ...CHECKED_ROOTS],
    { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  return out.split("\0").filter((p) => p.length > 0);
}

function main(): void {
  const repoRoot = fileURLToPath(new URL("..", import.meta.url));
  const paths = listFiles(repoRoot);
  const offences = findOffences(paths, (p) => {
    try {
      return countLines(`${repoRoot}/${p}`);
    } catch {
      return 0; // listed by git but deleted in the work tree
    }
  });
  for (const o of checkBoundaries(repoRoot, paths))
    offences.push({ path: `${o.path}:${o.line}`, problem: o.problem });
  for (const path of paths.filter((p) => /\.(ts|tsx|js|mjs|cjs)$/.test(p))) {
    let text: string;
    try {
      text = readFileSync(`${repoRoot}/${path}`, "utf8");
    } catch {
      continue; // listed by git but deleted in the work tree
    }
    for (const o of checkOwners(path, text))
      offences.push({ path: `${o.path}:${o.line}`, problem: o.problem });
  }
  if (offences.length === 0) {
    console.log(`check-files: ${paths.length} files ok`);
    return;
  }
  for (const o of offences) console.error(`check-files: ${o.path}: ${o.problem}`);
  console.error(`check-files: ${offences.length} problem(s)`);
  process.exitCode = 1;
}

if (import.meta.main) main();
