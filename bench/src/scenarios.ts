/**
 * The vfs benchmark scenarios, shared by every backend (node:sqlite, the Durable Object, the
 * node:fs baselines). Each has an untimed `setup`, a timed `run` and an untimed `check` that
 * proves the run did its work. No `node:*` imports: this file is bundled into the bench Worker.
 */
import type { BenchFs } from "./bench-fs.ts";
import { piecesOf, pseudoRandomBytes } from "./payload.ts";

const MiB = 1 << 20;

/** How big the scenarios are; `--quick` shrinks them. */
export interface BenchSize {
  /** Files created, statted, listed, written or moved by the many-files scenarios. */
  files: number;
  /** Bytes of each write in the "1 KiB x N" scenarios. */
  smallBytes: number;
  /** Bytes of the large file. */
  bigBytes: number;
  /** Bytes of each piece a large-file stream is fed in. */
  pieceBytes: number;
}

/** The sizes the reference figures use (docs BENCH.md). */
export const FULL_SIZE: BenchSize = { files: 1000, smallBytes: 1024, bigBytes: 64 * MiB, pieceBytes: MiB };

/** A smoke-test size: same code paths, a few seconds in all. */
export const QUICK_SIZE: BenchSize = { files: 100, smallBytes: 1024, bigBytes: 8 * MiB, pieceBytes: MiB };

/** What `setup` leaves for `run` (kept in memory between the two, untimed). */
export interface Prepared {
  payload?: Uint8Array;
}

/** One benchmark scenario. */
export interface Scenario {
  /** Stable id, used on the command line, in JSON and in Worker requests. */
  readonly id: string;
  /** The name people read, e.g. "create 1000 files". */
  label(size: BenchSize): string;
  /** What one operation is, for ops/s ("files", "MiB", ...). */
  readonly unit: string;
  /** Operations one run performs. */
  ops(size: BenchSize): number;
  /** Payload bytes one run moves (written or read), not counting metadata. */
  bytes(size: BenchSize): number;
  /** Untimed preparation in a fresh, empty target. */
  setup(fs: BenchFs, size: BenchSize): Prepared;
  /** The timed part. Its result goes to `check`. */
  run(fs: BenchFs, size: BenchSize, prepared: Prepared): unknown;
  /** Untimed: throws if the run did not do what it claims. */
  check(fs: BenchFs, size: BenchSize, prepared: Prepared, result: unknown): void;
}

/** The directory every scenario works in. */
const DIR = "/bench";

function fileName(i: number): string {
  return `${DIR}/f${i}`;
}

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(`benchmark check failed: ${what}`);
}

function createSmallFiles(fs: BenchFs, dir: string, count: number): void {
  for (let i = 0; i < count; i++) fs.writeFile(`${dir}/f${i}`, `${i}\n`);
}

function smallFilesBytes(count: number): number {
  let total = 0;
  for (let i = 0; i < count; i++) total += `${i}\n`.length;
  return total;
}

function requirePayload(prepared: Prepared): Uint8Array {
  if (!prepared.payload) throw new Error("scenario setup left no payload");
  return prepared.payload;
}

/** Compares every 4 KiB-th byte and the last one: enough to catch a wrong or shifted file cheaply. */
function samplesMatch(actual: Uint8Array, expected: Uint8Array): boolean {
  if (actual.length !== expected.length) return false;
  for (let i = 0; i < expected.length; i += 4093) if (actual[i] !== expected[i]) return false;
  return actual[actual.length - 1] === expected[expected.length - 1];
}

const mkdirOnly = (fs: BenchFs): Prepared => {
  fs.mkdir(DIR);
  return {};
};

const withSmallFiles = (fs: BenchFs, size: BenchSize): Prepared => {
  fs.mkdir(DIR);
  createSmallFiles(fs, DIR, size.files);
  return {};
};

const createFiles: Scenario = {
  id: "create-files",
  label: (s) => `create ${s.files} files`,
  unit: "files",
  ops: (s) => s.files,
  bytes: (s) => smallFilesBytes(s.files),
  setup: mkdirOnly,
  run: (fs, s) => createSmallFiles(fs, DIR, s.files),
  check: (fs, s) => expect(fs.list(DIR).length === s.files, "every file was created"),
};

const statFiles: Scenario = {
  id: "stat-files",
  label: (s) => `stat ${s.files} files`,
  unit: "stats",
  ops: (s) => s.files,
  bytes: () => 0,
  setup: withSmallFiles,
  run: (fs, s) => {
    let total = 0;
    for (let i = 0; i < s.files; i++) total += fs.stat(fileName(i)).size;
    return total;
  },
  check: (_fs, s, _p, result) => expect(result === smallFilesBytes(s.files), "stat saw every file's size"),
};

const readdir: Scenario = {
  id: "readdir",
  label: (s) => `readdir ${s.files} entries`,
  unit: "entries",
  ops: (s) => s.files,
  bytes: () => 0,
  setup: withSmallFiles,
  run: (fs) => fs.list(DIR).length,
  check: (_fs, s, _p, result) => expect(result === s.files, "readdir returned every entry"),
};

const writeSmallFiles: Scenario = {
  id: "write-1k-files",
  label: (s) => `write ${s.smallBytes / 1024} KiB x${s.files} files`,
  unit: "files",
  ops: (s) => s.files,
  bytes: (s) => s.files * s.smallBytes,
  setup: (fs, s) => {
    fs.mkdir(DIR);
    return { payload: pseudoRandomBytes(s.files * s.smallBytes) };
  },
  run: (fs, s, p) => {
    const payload = requirePayload(p);
    for (let i = 0; i < s.files; i++) {
      fs.writeFile(fileName(i), payload.subarray(i * s.smallBytes, (i + 1) * s.smallBytes));
    }
  },
  check: (fs, s) => expect(fs.stat(fileName(s.files - 1)).size === s.smallBytes, "the last file is complete"),
};

const pwriteSmall: Scenario = {
  id: "pwrite-1k",
  label: (s) => `pwrite ${s.smallBytes / 1024} KiB x${s.files} (one file)`,
  unit: "writes",
  ops: (s) => s.files,
  bytes: (s) => s.files * s.smallBytes,
  setup: (fs, s) => {
    fs.mkdir(DIR);
    fs.writeFile(`${DIR}/log`, "");
    return { payload: pseudoRandomBytes(s.files * s.smallBytes) };
  },
  run: (fs, s, p) => {
    const payload = requirePayload(p);
    for (let i = 0; i < s.files; i++) {
      const offset = i * s.smallBytes;
      fs.pwrite(`${DIR}/log`, offset, payload.subarray(offset, offset + s.smallBytes));
    }
  },
  check: (fs, s) => expect(fs.stat(`${DIR}/log`).size === s.files * s.smallBytes, "the file has every write"),
};

const bigPayload = (fs: BenchFs, s: BenchSize): Prepared => {
  fs.mkdir(DIR);
  return { payload: pseudoRandomBytes(s.bigBytes) };
};

const checkBigFile = (fs: BenchFs, s: BenchSize): void =>
  expect(fs.stat(`${DIR}/big`).size === s.bigBytes, "the large file has its full size");

const writeBig: Scenario = {
  id: "write-big",
  label: (s) => `write ${s.bigBytes / MiB} MiB (writeFile)`,
  unit: "MiB",
  ops: (s) => s.bigBytes / MiB,
  bytes: (s) => s.bigBytes,
  setup: bigPayload,
  run: (fs, _s, p) => fs.writeFile(`${DIR}/big`, requirePayload(p)),
  check: checkBigFile,
};

const writeBigStream: Scenario = {
  id: "write-big-stream",
  label: (s) => `write ${s.bigBytes / MiB} MiB (writeStream ${s.pieceBytes / MiB} MiB)`,
  unit: "MiB",
  ops: (s) => s.bigBytes / MiB,
  bytes: (s) => s.bigBytes,
  setup: bigPayload,
  run: (fs, s, p) => fs.writeStream(`${DIR}/big`, piecesOf(requirePayload(p), s.pieceBytes)),
  check: checkBigFile,
};

const readBig: Scenario = {
  id: "read-big",
  label: (s) => `read ${s.bigBytes / MiB} MiB (readFile)`,
  unit: "MiB",
  ops: (s) => s.bigBytes / MiB,
  bytes: (s) => s.bigBytes,
  setup: (fs, s) => {
    const prepared = bigPayload(fs, s);
    fs.writeFile(`${DIR}/big`, requirePayload(prepared));
    return prepared;
  },
  run: (fs) => fs.readFile(`${DIR}/big`),
  check: (_fs, _s, p, result) =>
    expect(
      result instanceof Uint8Array && samplesMatch(result, requirePayload(p)),
      "read back what was written",
    ),
};

const renameDir: Scenario = {
  id: "rename-dir",
  label: (s) => `rename ${s.files}-file dir`,
  unit: "renames",
  ops: () => 1,
  bytes: () => 0,
  setup: withSmallFiles,
  run: (fs) => fs.rename(DIR, "/moved"),
  check: (fs, s) => {
    expect(fs.list("/moved").length === s.files, "every file moved with its directory");
    expect(fs.stat(`/moved/f${s.files - 1}`).size > 0, "a moved file resolves at its new path");
  },
};

/** Every scenario, in report order. */
export const SCENARIOS: readonly Scenario[] = [
  createFiles,
  statFiles,
  readdir,
  writeSmallFiles,
  pwriteSmall,
  writeBig,
  writeBigStream,
  readBig,
  renameDir,
];

/** The scenario with this id; throws for an unknown one. */
export function scenarioById(id: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario)
    throw new Error(`unknown scenario "${id}" (known: ${SCENARIOS.map((s) => s.id).join(", ")})`);
  return scenario;
}
