/**
 * The fs-bench scenarios of docs/BENCH.md, each as the bash it describes, with the reference's
 * names so results compare line by line. Every repetition runs in a fresh, empty directory:
 * `setup` (untimed), `run` (timed inside bash), `check` (untimed: did the run do its work?).
 */
import { projectScenarios } from "./project-scenarios.ts";
import { type BenchSizes, FULL } from "./sizes.ts";

/**
 * What BENCH.md's targets hold a scenario to: metadata ≤ disk time, bulk (64 MiB) ≤ 3× disk, a
 * real npm install ≤ 1.2× disk.
 */
export type ScenarioKind = "metadata" | "bulk" | "install";

/** One scenario. Scripts are bash bodies, run with `set -eo pipefail` in the repetition's directory. */
export interface ShellScenario {
  /** The reference's name, e.g. "create 1000 files". */
  name: string;
  /** A file-name-safe id for --scenario and directory names. */
  id: string;
  kind: ScenarioKind;
  /** Once per run, before any repetition, in a scratch directory (untimed). */
  prepare?: string;
  /** Before the timed part of each repetition (untimed). */
  setup?: string;
  /** The timed part. */
  run: string;
  /** After the timed part (untimed); fails with a message on stderr if the run did not do its work. */
  check: string;
  /** Commands the scenario runs that may be missing (skipped, with the reason, where they are). */
  needs?: string[];
  /**
   * The timed part leaves the tree as setup made it (a read like `git status`): the warm-ups
   * and repetitions on a target run in one directory, set up once.
   */
  shareSetup?: boolean;
  /** At most this many timed repetitions and warm-ups, whatever --reps and --warmup say (heavy scenarios). */
  maxReps?: number;
  maxWarmup?: number;
}

const NPM_FLAGS = "--prefer-offline --no-audit --no-fund";

/** Bash helpers every check may use. */
export const CHECK_PRELUDE = `expect() { [ "$1" = "$2" ] || { echo "$3: expected $2, got $1" >&2; exit 1; }; }
files() { find . -type f | wc -l; }
size() { stat -c %s "$1"; }`;

/** `for i in 1..n: echo $i > f$i`. */
export const createFiles = (n: number) => `for i in $(seq 1 ${n}); do echo $i > f$i; done`;

/** The 13 scenarios of BENCH.md's reference, in its order, at `sizes` (FULL: the reference's). */
export function referenceScenarios(sizes: BenchSizes): ShellScenario[] {
  const n = sizes.files;
  const [a, b, c] = sizes.tree;
  const tree = `${a}x${b}x${c}`;
  // The reference's names at its own sizes; other sizes say theirs.
  const sized = (name: string, full: boolean, size: string) => (full ? name : `${name} (${size})`);
  const bytes = sizes.mib * 1024 * 1024;
  const mib = `${sizes.mib} MiB`;
  const write = `dd if=/dev/zero of=f bs=1M count=${sizes.mib} status=none`;
  const treeScript = `for a in $(seq 1 ${a}); do
  for b in $(seq 1 ${b}); do
    mkdir -p $a/$b
    for c in $(seq 1 ${c}); do touch $a/$b/$c; done
  done
done`;
  const checkFiles = `expect "$(ls | wc -l)" ${n} "files"; expect "$(cat f${n / 2})" ${n / 2} "content of f${n / 2}"`;
  const checkTree = `expect "$(files)" ${a * b * c} "files in the tree"; expect "$(find . -mindepth 2 -maxdepth 2 -type d | wc -l)" ${a * b} "directories"`;
  const checkZeros = (file: string) =>
    `expect "$(size ${file})" ${bytes} "size of ${file}"; cmp -s -n ${bytes} ${file} /dev/zero || { echo "${file} is not ${mib} of zeros" >&2; exit 1; }`;
  return [
    { name: `create ${n} files`, id: "create", kind: "metadata", run: createFiles(n), check: checkFiles },
    {
      name: `stat ${n} files`,
      id: "stat",
      kind: "metadata",
      run: `${createFiles(n)}\nfor i in $(seq 1 ${n}); do stat f$i; done`,
      check: checkFiles,
    },
    {
      name: `rm ${n} files`,
      id: "rm",
      kind: "metadata",
      run: `${createFiles(n)}\nrm f*`,
      check: `expect "$(ls -A | wc -l)" 0 "entries left"`,
    },
    { name: `mkdir tree (${tree})`, id: "mkdir-tree", kind: "metadata", run: treeScript, check: checkTree },
    {
      name: sized("find tree", tree === "10x10x10", tree),
      id: "find-tree",
      kind: "metadata",
      run: `${treeScript}\nfind . -type f | wc -l > /dev/null`,
      check: checkTree,
    },
    { name: `write ${mib}`, id: "write-64", kind: "bulk", run: write, check: checkZeros("f") },
    {
      name: `copy ${mib}`,
      id: "copy-64",
      kind: "bulk",
      run: `${write}\ncp f g`,
      check: `${checkZeros("f")}\n${checkZeros("g")}`,
    },
    {
      name: `read ${mib}`,
      id: "read-64",
      kind: "bulk",
      run: `${write}\ncat f > /dev/null`,
      check: checkZeros("f"),
    },
    {
      name: `pure read ${mib}`,
      id: "pure-read-64",
      kind: "bulk",
      setup: write,
      run: "cat f > /dev/null",
      check: checkZeros("f"),
    },
    {
      name: `pure copy ${mib}`,
      id: "pure-copy-64",
      kind: "bulk",
      setup: write,
      run: "cp f g",
      check: checkZeros("g"),
    },
    {
      name: `overwrite ${mib}`,
      id: "overwrite-64",
      kind: "bulk",
      setup: write,
      run: `dd if=/dev/zero of=f bs=1M count=${sizes.mib} conv=notrunc status=none`,
      check: checkZeros("f"),
    },
    {
      name: "git init + commit 100 files",
      id: "git",
      kind: "metadata",
      needs: ["git"],
      run: `git init -q\n${createFiles(100)}\ngit add -A && git commit -qm init`,
      check: `expect "$(git rev-list --count HEAD)" 1 "commits"; expect "$(git ls-files | wc -l)" 100 "tracked files"; git fsck --strict`,
    },
    {
      name: "npm init + tiny install",
      id: "npm",
      kind: "metadata",
      needs: ["npm", "node"],
      // Proves the install works offline, warming the cache first where it does not.
      prepare: `npm init -y > /dev/null
npm install is-number@7 --offline --no-audit --no-fund > /dev/null 2>&1 || {
  npm cache add is-number@7.0.0 || echo "npm cache add failed; using the cache as it is" >&2
  npm install is-number@7 --offline --no-audit --no-fund > /dev/null
}`,
      run: `npm init -y > /dev/null && npm install is-number@7 ${NPM_FLAGS} > /dev/null`,
      check: `expect "$(node -p 'require("./node_modules/is-number/package.json").version')" 7.0.0 "is-number version"`,
    },
  ];
}

/** Every shell scenario at `sizes`: the reference's, then the project scenarios. */
export function shellScenarios(sizes: BenchSizes): ShellScenario[] {
  return [...referenceScenarios(sizes), ...projectScenarios(sizes)];
}

/** Every shell scenario at BENCH.md's sizes. */
export const SCENARIOS: readonly ShellScenario[] = shellScenarios(FULL);

/** The scenario of `list` named `nameOrId` (its name or its id). */
export function findScenario(
  nameOrId: string,
  list: readonly ShellScenario[] = SCENARIOS,
): ShellScenario | undefined {
  return list.find((s) => s.id === nameOrId || s.name === nameOrId);
}
