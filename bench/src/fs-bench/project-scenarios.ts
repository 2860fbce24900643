/**
 * fs-bench scenarios beyond the reference's list (docs/BENCH.md): the work of a real project —
 * git on 1,000 and 10,000 files and a clone, and a real `npm install` of a committed lockfile
 * (bench/fixtures/npm-webapp: 644 packages, about 27,000 installed files) from a warm cache, so
 * the filesystem is measured and not the network.
 */
import { fileURLToPath } from "node:url";
import type { ShellScenario } from "./scenarios.ts";

/** The committed project whose lockfile the npm scenarios install. */
export const NPM_PROJECT = fileURLToPath(new URL("../../fixtures/npm-webapp", import.meta.url));
/** Packages in its lockfile and the fewest files an install must leave. */
export const NPM_PACKAGES = 644;
export const NPM_MIN_FILES = 20_000;
/**
 * npm's cache for the scenarios, filled by their preparation (the registry is reachable there)
 * and then used offline. On a real disk, like a developer's ~/.npm.
 */
export const NPM_CACHE = process.env.BENCH_NPM_CACHE ?? "/var/tmp/computer-bench-npm-cache";
/** No lifecycle scripts: they would fetch or build things, which is not the filesystem's work. */
const NPM_CI = `npm ci --offline --no-audit --no-fund --ignore-scripts --cache ${NPM_CACHE} > /dev/null`;
const COPY_PROJECT = `cp ${NPM_PROJECT}/package.json ${NPM_PROJECT}/package-lock.json .`;

/**
 * Fills the cache (an online `npm ci`, quick when it is already warm) and proves an offline
 * install works; the cache is left readable for every user.
 */
export const WARM_NPM_CACHE = `mkdir -p ${NPM_CACHE}
${COPY_PROJECT}
npm ci --prefer-offline --no-audit --no-fund --ignore-scripts --cache ${NPM_CACHE} > /dev/null
rm -rf node_modules
${NPM_CI}
chmod -R a+rX ${NPM_CACHE}`;

/** Checks an install of the project in the current directory: every package, enough files. */
export const CHECK_NPM_INSTALL = `expect "$(node -p 'Object.keys(require("./node_modules/.package-lock.json").packages).length')" ${NPM_PACKAGES} "installed packages"
installed=$(find node_modules -type f | wc -l)
[ "$installed" -ge ${NPM_MIN_FILES} ] || { echo "only $installed files installed" >&2; exit 1; }`;

const CREATE = (n: number) => `for i in $(seq 1 ${n}); do echo $i > f$i; done`;

export const PROJECT_SCENARIOS: readonly ShellScenario[] = [
  {
    name: "git init + commit 1000 files",
    id: "git-commit-1000",
    kind: "metadata",
    needs: ["git"],
    run: `git init -q\n${CREATE(1000)}\ngit add -A && git commit -qm init`,
    check: `expect "$(git rev-list --count HEAD)" 1 "commits"; expect "$(git ls-files | wc -l)" 1000 "tracked files"; git fsck --strict`,
  },
  {
    name: "git status, 10,000 files (dirty)",
    id: "git-status-10k",
    kind: "metadata",
    needs: ["git"],
    // 100 directories of 100 files, committed; then 100 changed and 100 new. One status before
    // the timed one refreshes the index, as an agent's repeated status would find it.
    setup: `git init -q
for d in $(seq 1 100); do mkdir d$d; (cd d$d && seq -f "f%g" 1 100 | xargs touch); done
git add -A && git commit -qm base
for d in $(seq 1 100); do echo changed > d$d/f1; done
for i in $(seq 1 100); do touch d1/new-$i; done
git status --porcelain > /dev/null`,
    run: "git status --porcelain > /dev/null",
    check: `expect "$(git status --porcelain | wc -l)" 200 "changed and untracked files"`,
  },
  {
    name: "git clone local bare repo (1000 files)",
    id: "git-clone",
    kind: "metadata",
    needs: ["git"],
    setup: `git init -q src && cd src
${CREATE(1000)}
git add -A && git commit -qm one
for i in $(seq 1 50); do echo more >> f$i; done
git commit -qam two && cd ..
git clone -q --bare src src.git && rm -rf src`,
    run: "git clone -q src.git work",
    check: `expect "$(git -C work rev-list --count HEAD)" 2 "commits"; expect "$(git -C work ls-files | wc -l)" 1000 "files"; git -C work fsck --strict`,
  },
  {
    name: `npm install (${NPM_PACKAGES} packages)`,
    id: "npm-install",
    kind: "install",
    needs: ["npm", "node"],
    prepare: WARM_NPM_CACHE,
    setup: COPY_PROJECT,
    run: NPM_CI,
    check: CHECK_NPM_INSTALL,
    // About 20 s on a disk here and several times that on a slow target: fewer repetitions.
    heavy: true,
    maxReps: 3,
    maxWarmup: 0,
  },
];
