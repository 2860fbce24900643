/**
 * Package boundaries, run by `npm run check`: a file imports another workspace only by its
 * package name and only through a subpath the package exports, and only a workspace it
 * depends on. A relative import that climbs into another workspace's files (a "deep import")
 * ties the two together behind npm's back and is reported, with the package path to use when
 * the file is exported. The root package (scripts/, test/, the root configs) is a workspace
 * like the others.
 */
import { existsSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { SOURCE_CONDITION } from "@computer/sdk/source-condition";

/** What the check needs to know of one workspace. */
export interface Workspace {
  /** Repo-relative folder ("" for the root package). */
  dir: string;
  name: string;
  /** Export subpath ("." or "./x") → repo-relative file. */
  exports: Map<string, string>;
  /** Package names it depends on (dependencies, devDependencies, peerDependencies). */
  dependsOn: Set<string>;
}

/** One broken boundary. */
export interface BoundaryOffence {
  path: string;
  line: number;
  problem: string;
}

const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\bvi\.mock\(\s*|\bvi\.importActual(?:<[^>]*>)?\(\s*)(["'])([^"'\n]+)\1/gm;

/** The import specifiers of a source text with their 1-based line numbers. */
export function importSpecifiers(text: string): { specifier: string; line: number }[] {
  const found: { specifier: string; line: number }[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[2] ?? "";
    const line = text.slice(0, match.index).split("\n").length;
    found.push({ specifier, line });
  }
  return found;
}

/** The workspace owning a repo-relative path: the one with the longest matching folder. */
export function ownerOf(path: string, workspaces: readonly Workspace[]): Workspace | undefined {
  let best: Workspace | undefined;
  for (const ws of workspaces) {
    const inside = ws.dir === "" || path === ws.dir || path.startsWith(`${ws.dir}/`);
    if (inside && (best === undefined || ws.dir.length > best.dir.length)) best = ws;
  }
  return best;
}

function exportedAs(target: string, ws: Workspace): string | undefined {
  for (const [subpath, file] of ws.exports) {
    if (file === target) return subpath === "." ? ws.name : `${ws.name}/${subpath.slice(2)}`;
  }
  return undefined;
}

/**
 * Checks the imports of the repo-relative `path` (source `text`). `exists` says whether a
 * repo-relative file exists: a relative specifier naming no file is not an import of a
 * module (a string in a test) and is left to the compiler.
 */
export function checkImports(
  path: string,
  text: string,
  workspaces: readonly Workspace[],
  exists: (path: string) => boolean,
): BoundaryOffence[] {
  const offences: BoundaryOffence[] = [];
  const from = ownerOf(path, workspaces);
  if (from === undefined) return offences;
  for (const { specifier, line } of importSpecifiers(text)) {
    if (specifier.startsWith(".")) {
      const target = posix.normalize(posix.join(posix.dirname(path), specifier));
      if (target.startsWith("..") || !exists(target)) continue;
      const to = ownerOf(target, workspaces);
      if (to === undefined || to === from) continue;
      const asPackage = exportedAs(target, to);
      const hint = asPackage ? `import "${asPackage}"` : `export it from ${to.name}'s package.json first`;
      offences.push({ path, line, problem: `deep import of ${target} (workspace ${to.name}): ${hint}` });
      continue;
    }
    const to = workspaces.find((ws) => specifier === ws.name || specifier.startsWith(`${ws.name}/`));
    if (to === undefined || to === from) continue;
    const subpath = specifier === to.name ? "." : `./${specifier.slice(to.name.length + 1)}`;
    if (!to.exports.has(subpath)) {
      offences.push({ path, line, problem: `${specifier}: ${to.name} does not export "${subpath}"` });
    } else if (!from.dependsOn.has(to.name)) {
      offences.push({ path, line, problem: `${specifier}: ${from.name} does not depend on ${to.name}` });
    }
  }
  return offences;
}

/** An export target: a file, or files by condition (`{ "computer-source": ..., default: ... }`). */
type ExportTarget = string | Record<string, string>;

interface PackageJson {
  name?: string;
  workspaces?: string[];
  exports?: string | Record<string, ExportTarget>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The file an in-repo import of an export reaches: the target itself, or under conditions the
 * repo's source condition's (@computer/sdk's dist/ build is for consumers outside the repo).
 */
export function sourceFile(target: ExportTarget): string {
  if (typeof target === "string") return target;
  const file = target[SOURCE_CONDITION] ?? target.default;
  if (file === undefined) throw new Error(`an export has neither "${SOURCE_CONDITION}" nor "default"`);
  return file;
}

function workspaceOf(repoRoot: string, dir: string): Workspace {
  const pkg = JSON.parse(readFileSync(`${repoRoot}/${dir === "" ? "" : `${dir}/`}package.json`, "utf8"));
  const json = pkg as PackageJson;
  const exports = new Map<string, string>();
  const raw = typeof json.exports === "string" ? { ".": json.exports } : (json.exports ?? {});
  for (const [subpath, target] of Object.entries(raw))
    exports.set(subpath, posix.join(dir, sourceFile(target)));
  const dependsOn = new Set([
    ...Object.keys(json.dependencies ?? {}),
    ...Object.keys(json.devDependencies ?? {}),
    ...Object.keys(json.peerDependencies ?? {}),
  ]);
  return { dir, name: json.name ?? dir, exports, dependsOn };
}

/** The root package and every workspace it lists, read from their package.json files. */
export function readWorkspaces(repoRoot: string): Workspace[] {
  const root = JSON.parse(readFileSync(`${repoRoot}/package.json`, "utf8")) as PackageJson;
  return [workspaceOf(repoRoot, ""), ...(root.workspaces ?? []).map((dir) => workspaceOf(repoRoot, dir))];
}

/** Checks every listed source file; returns the offences. */
export function checkBoundaries(repoRoot: string, paths: readonly string[]): BoundaryOffence[] {
  const workspaces = readWorkspaces(repoRoot);
  const offences: BoundaryOffence[] = [];
  for (const path of paths) {
    if (!/\.(ts|tsx|js|mjs|cjs)$/.test(path) || !existsSync(`${repoRoot}/${path}`)) continue;
    const text = readFileSync(`${repoRoot}/${path}`, "utf8");
    offences.push(...checkImports(path, text, workspaces, (p) => existsSync(`${repoRoot}/${p}`)));
  }
  return offences;
}
