/**
 * fs-bench scenarios beyond the reference's list (docs/BENCH.md): the work of a real project —
 * a big file written 4 KiB at a time, git on 1,000 and 10,000 files and a clone, and a real `npm install` of a committed lockfile
 * (sizes.ts: bench/fixtures/npm-webapp, 644 packages and about 27,000 installed files; quick:
 * npm-small) from a warm cache, so the filesystem is measured and not the network.
 */
import type { ShellScenario } from "./scenarios.ts";
import type { BenchSizes, NpmProject } from "./sizes.ts";

/** Timed repetitions of an `npm install` at most (about 20 s on a disk here, several times that on a slow target). */
export const NPM_INSTALL_MAX_REPS = 3;

/**
 * npm's cache for the scenarios, filled by their preparation (the registry is reachable there)
 * and then used offline. On a real disk, like a developer's ~/.npm.
 */
export const NPM_CACHE = process.env.BENCH_NPM_CACHE ?? "/var/tmp/computer-bench-npm-cache";
/** No lifecycle scripts: they would fetch or build things, which is not the filesystem's work. */
export const NPM_CI_FLAGS = "--no-audit --no-fund --ignore-scripts";
const npmCi = (cache: string) => `npm ci --offline ${NPM_CI_FLAGS} --cache ${cache} > /dev/null`;
const copyProject = (project: NpmProject) =>
  `cp ${project.dir}/package.json ${project.dir}/package-lock.json .`;

/**
 * Proves an offline install of the project in the current directory works from `cache`, filling
 * the cache first (an online `npm ci`) only when it does not; removes the install again.
 */
export function warmNpmCache(cache: string): string {
  return `mkdir -p ${cache}
if ! ${npmCi(cache)} 2> /dev/null; then
  rm -rf node_modules
  npm ci --prefer-offline ${NPM_CI_FLAGS} --cache ${cache} > /dev/null
  rm -rf node_modules
  ${npmCi(cache)}
fi
rm -rf node_modules`;
}

/** Checks an install of `project` in the current directory: every package, enough files. */
export function checkNpmInstall(project: NpmProject): string {
  return `expect "$(node -p 'Object.keys(require("./node_modules/.package-lock.json").packages).length')" ${project.packages} "installed packages"
installed=$(find node_modules -type f | wc -l)
[ "$installed" -ge ${project.minFiles} ] || { echo "only $installed files installed" >&2; exit 1; }`;
}

/** The name of the install scenario of `project`, on the three targets and on the fleet. */
export const npmInstallName = (project: NpmProject) => `npm install (${project.packages} packages)`;

const count = (n: number) => n.toLocaleString("en-US");

export function projectScenarios(sizes: BenchSizes): ShellScenario[] {
  const n = sizes.gitFiles;
  const create = (files: number) => `for i in $(seq 1 ${files}); do echo $i > f$i; done`;
  const status = sizes.statusDirs;
  const bytes = sizes.mib * 1024 * 1024;
  return [
    {
      // What `head -c`, a compiler or tar do: a stdio buffer's 4 KiB at a time, one FUSE write
      // request each (native/write-run.h).
      name: `write ${sizes.mib} MiB in 4 KiB writes`,
      id: "write-small-64",
      kind: "bulk",
      run: `dd if=/dev/zero of=f bs=4k count=${bytes / 4096} status=none`,
      check: `expect "$(size f)" ${bytes} "bytes written"; cmp -s -n ${bytes} f /dev/zero || { echo "f is not all zeros" >&2; exit 1; }`,
    },
    {
      name: `git init + commit ${n} files`,
      id: "git-commit-1000",
      kind: "metadata",
      needs: ["git"],
      run: `git init -q\n${create(n)}\ngit add -A && git commit -qm init`,
      check: `expect "$(git rev-list --count HEAD)" 1 "commits"; expect "$(git ls-files | wc -l)" ${n} "tracked files"; git fsck --strict`,
    },
    {
      name: `git status, ${count(status * 100)} files (dirty)`,
      id: "git-status-10k",
      kind: "metadata",
      needs: ["git"],
      // Directories of 100 files, committed; then one file changed in each and 100 new ones.
      // One status before the timed one refreshes the index, as an agent's repeated status
      // would find it.
      setup: `git init -q
for d in $(seq 1 ${status}); do mkdir d$d; (cd d$d && seq -f "f%g" 1 100 | xargs touch); done
git add -A && git commit -qm base
for d in $(seq 1 ${status}); do echo changed > d$d/f1; done
for i in $(seq 1 100); do touch d1/new-$i; done
git status --porcelain > /dev/null`,
      run: "git status --porcelain > /dev/null",
      // The status before the timed one already saw the tree; each one after it finds the same.
      shareSetup: true,
      check: `expect "$(git status --porcelain | wc -l)" ${status + 100} "changed and untracked files"`,
    },
    {
      name: `git clone local bare repo (${n} files)`,
      id: "git-clone",
      kind: "metadata",
      needs: ["git"],
      setup: `git init -q src && cd src
${create(n)}
git add -A && git commit -qm one
for i in $(seq 1 50); do echo more >> f$i; done
git commit -qam two && cd ..
git clone -q --bare src src.git && rm -rf src`,
      run: "git clone -q src.git work",
      check: `expect "$(git -C work rev-list --count HEAD)" 2 "commits"; expect "$(git -C work ls-files | wc -l)" ${n} "files"; git -C work fsck --strict`,
    },
    {
      name: npmInstallName(sizes.npm),
      id: "npm-install",
      kind: "install",
      needs: ["npm", "node"],
      prepare: `${copyProject(sizes.npm)}\n${warmNpmCache(NPM_CACHE)}\nchmod -R a+rX ${NPM_CACHE}`,
      setup: copyProject(sizes.npm),
      run: npmCi(NPM_CACHE),
      check: checkNpmInstall(sizes.npm),
      maxReps: NPM_INSTALL_MAX_REPS,
      maxWarmup: 0,
    },
  ];
}
