/**
 * find (glob with `*`, `**`, `?`), grep (literal or regex, context lines) and
 * disk usage over a subtree.
 */
import { readRange } from "./content.ts";
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { resolveExisting } from "./resolve.ts";
import { descendants } from "./subtree.ts";
import type { DiskUsage, GrepMatch, GrepOptions } from "./types.ts";

/** Compiles a glob to a RegExp over paths relative to the search root: `**` spans directories, `*` and `?` do not. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          source += "(?:.*/)?";
        } else {
          source += ".*";
        }
      } else {
        source += "[^/]*";
      }
    } else if (c === "?") {
      source += "[^/]";
    } else {
      source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

/** Absolute paths under `path` whose path relative to it matches `glob`, sorted. */
export function find(ctx: Context, path: string, glob: string, limit = 10_000): string[] {
  if (typeof glob !== "string" || glob === "") throw new FsError("EINVAL", "find", path, "empty glob");
  const root = resolveExisting(ctx, path, "find", true);
  if (root.node.type !== "dir") throw new FsError("ENOTDIR", "find", path);
  const pattern = globToRegExp(glob);
  const prefix = root.path === "/" ? 1 : root.path.length + 1;
  const found: string[] = [];
  for (const entry of descendants(ctx, root.node.ino, root.path)) {
    if (pattern.test(entry.path.slice(prefix))) found.push(entry.path);
    if (found.length >= limit) break;
  }
  return found.sort();
}

const decoder = new TextDecoder();

/** Lines matching `pattern` in every regular file under `path` (or in `path` itself). */
export function grep(ctx: Context, path: string, pattern: string, options: GrepOptions = {}): GrepMatch[] {
  if (typeof pattern !== "string" || pattern === "")
    throw new FsError("EINVAL", "grep", path, "empty pattern");
  let re: RegExp;
  try {
    const source = options.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    re = new RegExp(source, options.ignoreCase ? "i" : "");
  } catch {
    throw new FsError("EINVAL", "grep", path, "invalid regular expression");
  }
  const context = options.context ?? 0;
  const limit = options.limit ?? 1000;
  const root = resolveExisting(ctx, path, "grep", true);
  const only = options.glob === undefined ? undefined : globToRegExp(options.glob);
  const prefix = root.path === "/" ? 1 : root.path.length + 1;
  const files =
    root.node.type === "dir"
      ? [...descendants(ctx, root.node.ino, root.path)]
          .filter((e) => e.type === "file" && (only === undefined || only.test(e.path.slice(prefix))))
          .sort((a, b) => (a.path < b.path ? -1 : 1))
      : [{ path: root.path, ino: root.node.ino, type: root.node.type }];
  const matches: GrepMatch[] = [];
  for (const file of files) {
    const node = ctx.store.node(file.ino);
    if (node?.type !== "file") continue;
    const bytes = readRange(ctx, node, 0, node.size, file.path);
    if (bytes.includes(0)) continue; // binary
    const lines = decoder.decode(bytes).split("\n");
    // A final newline ends the last line; it does not start an empty one.
    if (lines[lines.length - 1] === "") lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i] as string;
      if (!re.test(text)) continue;
      matches.push({
        path: file.path,
        line: i + 1,
        text,
        before: lines.slice(Math.max(0, i - context), i),
        after: lines.slice(i + 1, i + 1 + context),
      });
      if (matches.length >= limit) return matches;
    }
  }
  return matches;
}

/** Bytes stored under `path` (each inode once) and the number of files and directories. */
export function du(ctx: Context, path: string): DiskUsage {
  const root = resolveExisting(ctx, path, "du", false);
  if (root.node.type !== "dir") return { bytes: root.node.allocated, files: 1, dirs: 0 };
  const seen = new Set<number>();
  let bytes = 0;
  let files = 0;
  let dirs = 1;
  for (const entry of descendants(ctx, root.node.ino, root.path)) {
    if (entry.type === "dir") dirs++;
    else files++;
    if (seen.has(entry.ino)) continue;
    seen.add(entry.ino);
    bytes += ctx.store.node(entry.ino)?.allocated ?? 0;
  }
  return { bytes, files, dirs };
}
