/**
 * The image's build context: /.dockerignore lets in only what images/computerd/Dockerfile copies,
 * including computerd's production dependencies by name. These helpers read that allowlist and
 * walk the real dependency closure, so a test can keep the two equal.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative } from "node:path";

/** The repository root. */
export const REPO_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * The image's Node and npm: root devDependencies (one pinned version each), let into the context
 * beside computerd's dependencies and installed by the Dockerfile into /usr/local, as make dev's
 * root filesystem (images/rootfs/build-rootfs.sh) installs them.
 */
export const TOOLCHAIN = ["node_modules/node/bin/node", "node_modules/npm"] as const;

/** The `node_modules/<package>` folders /.dockerignore lets into the context (the toolchain aside). */
export function contextPackages(dockerignore = `${REPO_ROOT}/.dockerignore`): string[] {
  return allowed(dockerignore)
    .filter((path) => path.startsWith("node_modules/") && !(TOOLCHAIN as readonly string[]).includes(path))
    .sort();
}

/** Every path /.dockerignore lets into the context (its `!` lines). */
export function allowed(dockerignore = `${REPO_ROOT}/.dockerignore`): string[] {
  return readFileSync(dockerignore, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("!"))
    .map((line) => line.slice(1));
}

/**
 * The installed folders of computerd's production dependency closure, without the workspaces
 * themselves (the image links those). Walked from the package.json files with Node's lookup
 * rule (nearest node_modules upwards) rather than asked of `npm ls`, whose answer depends on
 * whether the tree came from `npm ci` or `npm install` (it once counted a dev-only package).
 */
export function productionPackages(): string[] {
  const found = new Set<string>();
  const visit = (fromDir: string, manifest: string, optional: boolean) => {
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    const deps = [
      ...Object.keys(pkg.dependencies ?? {}).map((name) => ({ name, optional: false })),
      ...Object.keys(pkg.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
    ];
    for (const dep of deps) {
      const dir = resolvePackageDir(fromDir, dep.name);
      if (!dir) {
        if (dep.optional || optional) continue;
        throw new Error(`${dep.name} (needed by ${manifest}) is not installed`);
      }
      const path = relative(REPO_ROOT, dir);
      if (path.startsWith("node_modules/@computer/") || found.has(path)) continue;
      found.add(path);
      visit(dir, `${dir}/package.json`, dep.optional);
    }
  };
  visit(`${REPO_ROOT}/computerd`, `${REPO_ROOT}/computerd/package.json`, false);
  return [...found].sort();
}

/** Where `name` resolves from `fromDir`: the nearest `node_modules/<name>` on the way up to the root. */
function resolvePackageDir(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; dir.startsWith(REPO_ROOT); dir = dirname(dir)) {
    const candidate = `${dir}/node_modules/${name}`;
    if (existsSync(`${candidate}/package.json`)) return candidate;
    if (dir === REPO_ROOT) break;
  }
  return undefined;
}
