/**
 * The fs-bench scenarios of docs/BENCH.md, each as the bash it describes, with the reference's
 * names so results compare line by line. Every repetition runs in a fresh, empty directory:
 * `setup` (untimed), `run` (timed inside bash), `check` (untimed: did the run do its work?).
 */
import { PROJECT_SCENARIOS } from "./project-scenarios.ts";

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
  /** Commands the scenario runs that may be missing (the computerd image has no npm). */
  needs?: string[];
  /** Left out of --quick runs unless named (minutes per repetition). */
  heavy?: boolean;
  /** At most this many timed repetitions and warm-ups, whatever --reps and --warmup say (heavy scenarios). */
  maxReps?: number;
  maxWarmup?: number;
}

const MIB64 = 64 * 1024 * 1024;
const CREATE_1000 = "for i in $(seq 1 1000); do echo $i > f$i; done";
const TREE_10X10X10 = `for a in $(seq 1 10); do
  for b in $(seq 1 10); do
    mkdir -p $a/$b
    for c in $(seq 1 10); do touch $a/$b/$c; done
  done
done`;
const WRITE_64 = "dd if=/dev/zero of=f bs=1M count=64 status=none";
const NPM_FLAGS = "--prefer-offline --no-audit --no-fund";

/** Bash helpers every check may use. */
export const CHECK_PRELUDE = `expect() { [ "$1" = "$2" ] || { echo "$3: expected $2, got $1" >&2; exit 1; }; }
files() { find . -type f | wc -l; }
size() { stat -c %s "$1"; }`;

const CHECK_1000 = `expect "$(ls | wc -l)" 1000 "files"; expect "$(cat f500)" 500 "content of f500"`;
const CHECK_TREE = `expect "$(files)" 1000 "files in the tree"; expect "$(find . -mindepth 2 -maxdepth 2 -type d | wc -l)" 100 "directories"`;
const checkZeros = (file: string) =>
  `expect "$(size ${file})" ${MIB64} "size of ${file}"; cmp -s -n ${MIB64} ${file} /dev/zero || { echo "${file} is not 64 MiB of zeros" >&2; exit 1; }`;

/** The 13 scenarios of BENCH.md's reference, in its order. */
export const REFERENCE_SCENARIOS: readonly ShellScenario[] = [
  { name: "create 1000 files", id: "create", kind: "metadata", run: CREATE_1000, check: CHECK_1000 },
  {
    name: "stat 1000 files",
    id: "stat",
    kind: "metadata",
    run: `${CREATE_1000}\nfor i in $(seq 1 1000); do stat f$i; done`,
    check: CHECK_1000,
  },
  {
    name: "rm 1000 files",
    id: "rm",
    kind: "metadata",
    run: `${CREATE_1000}\nrm f*`,
    check: `expect "$(ls -A | wc -l)" 0 "entries left"`,
  },
  {
    name: "mkdir tree (10x10x10)",
    id: "mkdir-tree",
    kind: "metadata",
    run: TREE_10X10X10,
    check: CHECK_TREE,
  },
  {
    name: "find tree",
    id: "find-tree",
    kind: "metadata",
    run: `${TREE_10X10X10}\nfind . -type f | wc -l > /dev/null`,
    check: CHECK_TREE,
  },
  { name: "write 64 MiB", id: "write-64", kind: "bulk", run: WRITE_64, check: checkZeros("f") },
  {
    name: "copy 64 MiB",
    id: "copy-64",
    kind: "bulk",
    run: `${WRITE_64}\ncp f g`,
    check: `${checkZeros("f")}\n${checkZeros("g")}`,
  },
  {
    name: "read 64 MiB",
    id: "read-64",
    kind: "bulk",
    run: `${WRITE_64}\ncat f > /dev/null`,
    check: checkZeros("f"),
  },
  {
    name: "pure read 64 MiB",
    id: "pure-read-64",
    kind: "bulk",
    setup: WRITE_64,
    run: "cat f > /dev/null",
    check: checkZeros("f"),
  },
  {
    name: "pure copy 64 MiB",
    id: "pure-copy-64",
    kind: "bulk",
    setup: WRITE_64,
    run: "cp f g",
    check: checkZeros("g"),
  },
  {
    name: "overwrite 64 MiB",
    id: "overwrite-64",
    kind: "bulk",
    setup: WRITE_64,
    run: "dd if=/dev/zero of=f bs=1M count=64 conv=notrunc status=none",
    check: checkZeros("f"),
  },
  {
    name: "git init + commit 100 files",
    id: "git",
    kind: "metadata",
    needs: ["git"],
    run: `git init -q
for i in $(seq 1 100); do echo $i > f$i; done
git add -A && git commit -qm init`,
    check: `expect "$(git rev-list --count HEAD)" 1 "commits"; expect "$(git ls-files | wc -l)" 100 "tracked files"; git fsck --strict`,
  },
  {
    name: "npm init + tiny install",
    id: "npm",
    kind: "metadata",
    needs: ["npm", "node"],
    // Warms the cache (where the registry is reachable) and proves the install works offline.
    prepare: `npm cache add is-number@7.0.0 || echo "npm cache add failed; using the cache as it is" >&2
npm init -y > /dev/null && npm install is-number@7 --offline --no-audit --no-fund > /dev/null`,
    run: `npm init -y > /dev/null && npm install is-number@7 ${NPM_FLAGS} > /dev/null`,
    check: `expect "$(node -p 'require("./node_modules/is-number/package.json").version')" 7.0.0 "is-number version"`,
  },
];

/** Every shell scenario: the reference's, then the project scenarios. */
export const SCENARIOS: readonly ShellScenario[] = [...REFERENCE_SCENARIOS, ...PROJECT_SCENARIOS];

/** The scenario named `nameOrId` (either its reference name or its id). */
export function findScenario(nameOrId: string): ShellScenario | undefined {
  return SCENARIOS.find((s) => s.id === nameOrId || s.name === nameOrId);
}
