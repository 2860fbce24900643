/**
 * Content hashes of source trees, the triggers that re-run a deploy: the Worker bundle is made
 * from worker/src (with the guest bundles its build script makes), vfs/src and the locked
 * dependencies; the computerd image from its Dockerfile,
 * context filter, computerd and vfs sources and the locked dependencies. Tests and files git
 * ignores are not part of either, so editing a test never redeploys.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Names that never belong to a deployed artifact. */
const SKIPPED = /(^|\/)(node_modules|\.wrangler|\.cache|dist)(\/|$)|\.test\.ts$|(^|\/)testing\.ts$/;

function listFiles(root: string, path: string, out: string[]): void {
  const full = join(root, path);
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) listFiles(root, join(path, name), out);
  } else if (!SKIPPED.test(path)) {
    out.push(path);
  }
}

/**
 * Hex sha-256 over the repo-relative paths and contents of every file under `paths` (files or
 * folders, relative to `root`), in sorted order. A missing path is an error: a trigger that
 * silently hashes nothing would never fire.
 */
export function hashSources(root: string, paths: readonly string[]): string {
  const files: string[] = [];
  for (const path of paths) listFiles(root, relative(root, join(root, path)), files);
  const hash = createHash("sha256");
  for (const file of [...new Set(files)].sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** What the Worker bundle is built from (relative to the repository root), guest bundles included. */
export const BUNDLE_SOURCES = [
  "worker/src",
  "worker/scripts",
  "worker/package.json",
  "vfs/src",
  "sdk/src",
  "sdk/package.json",
  "package-lock.json",
] as const;

/** What the computerd image is built from (relative to the repository root). */
export const IMAGE_SOURCES = [
  "images/computerd/Dockerfile",
  ".dockerignore",
  "computerd/bin",
  "computerd/src",
  "computerd/package.json",
  "vfs/src",
  "sdk/src/contract",
  "sdk/package.json",
  "package-lock.json",
] as const;

/** What the benchmark job runs (relative to the repository root). */
export const BENCH_SOURCES = [
  "bench/src",
  "bench/fixtures",
  "bench/package.json",
  "bench/compose.yaml",
] as const;
