/**
 * `npm run -w @computer/bench mirror-pages`: what the mirror's SQLite page size costs computerd's
 * JS thread, which runs every mirror statement and commit itself. Per page size, alternating,
 * a fresh mirror (openMirror, as computerd opens it; a 4 KiB one made the way a mirror of before
 * MIRROR_PAGE_BYTES was) in `--dir`: `--mib` files of 1 MiB of distinct bytes committed eight at a
 * time (the chunks a command's big write stores), then `--files` small files committed fifty at a
 * time (the batches of a create loop). Prints the process's CPU (user + system) and the wall time
 * of each part, medians over `--reps`; JSON in `--out`.
 */
import { randomFillSync } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MIRROR_FILE, MIRROR_PAGE_BYTES, type Mirror, openMirror } from "computerd/mirror";
import { summarize } from "./stats.ts";

const DEFAULT_OUT = fileURLToPath(new URL("../results/", import.meta.url));

const USAGE = `Usage: npm run -w @computer/bench mirror-pages -- [options]

  --mib N       1 MiB files written per repetition (default 200)
  --files N     small files written per repetition (default 10000)
  --reps N      repetitions per page size (default 3)
  --pages LIST  page sizes to compare, comma-separated (default 4096 and the mirror's own)
  --dir DIR     where the mirrors go (default /var/tmp: a real disk, as computerd's state)
  --out DIR     where the JSON document goes (default bench/results)
  --help        this text`;

/** The page sizes compared by default: SQLite's (mirrors made before) and the mirror's own. */
const PAGE_SIZES = `4096,${MIRROR_PAGE_BYTES}`;

interface PartSample {
  cpuMs: number;
  wallMs: number;
}

/** Runs `part` and measures this process's CPU and the wall time it took. */
function measure(part: () => void): PartSample {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  part();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

/** A fresh mirror in `dir` whose SQLite pages are `pageBytes` long. */
function freshMirror(dir: string, pageBytes: number): Mirror {
  if (pageBytes !== MIRROR_PAGE_BYTES) {
    // A mirror of before: the file exists (WAL mode fixes its page size) before openMirror.
    const db = new DatabaseSync(join(dir, MIRROR_FILE));
    db.exec(`PRAGMA page_size = ${pageBytes}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.close();
  }
  const mirror = openMirror(dir);
  const [row] = mirror.sql.exec<{ page_size: number }>("PRAGMA page_size");
  if (row?.page_size !== pageBytes)
    throw new Error(`mirror has ${row?.page_size}-byte pages, not ${pageBytes}`);
  return mirror;
}

function writeChunks(mirror: Mirror, mib: number): void {
  const data = new Uint8Array(1 << 20);
  for (let i = 0; i < mib; i++) {
    randomFillSync(data, 0, 64); // distinct chunks: nothing is shared by hash
    mirror.vfs.writeFile(`/big/f${i}`, data, { parents: true });
    if (i % 8 === 7) mirror.sql.commit();
  }
  mirror.sql.commit();
}

function writeSmallFiles(mirror: Mirror, files: number): void {
  for (let d = 0; d < 100; d++) mirror.vfs.mkdir(`/small/d${d}`, { recursive: true });
  for (let i = 0; i < files; i++) {
    mirror.vfs.writeFile(`/small/d${i % 100}/f${i}.txt`, `content ${i}\n`);
    if (i % 50 === 49) mirror.sql.commit();
  }
  mirror.sql.commit();
}

function main(): number {
  const { values } = parseArgs({
    options: {
      mib: { type: "string", default: "200" },
      files: { type: "string", default: "10000" },
      reps: { type: "string", default: "3" },
      pages: { type: "string", default: PAGE_SIZES },
      dir: { type: "string", default: "/var/tmp" },
      out: { type: "string", default: DEFAULT_OUT },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const mib = Number(values.mib);
  const files = Number(values.files);
  const reps = Number(values.reps);
  const pageSizes = values.pages.split(",").map(Number);
  if (![mib, files, reps].every((n) => Number.isSafeInteger(n) && n > 0)) {
    console.error(`mirror-pages: --mib, --files and --reps take positive integers\n\n${USAGE}`);
    return 2;
  }
  // SQLite takes powers of two from 512 to 65536 and silently keeps its default for others.
  if (!pageSizes.every((n) => Number.isInteger(n) && n >= 512 && n <= 65536 && (n & (n - 1)) === 0)) {
    console.error(`mirror-pages: --pages takes powers of two from 512 to 65536\n\n${USAGE}`);
    return 2;
  }
  const samples = new Map(
    pageSizes.map((size) => [size, { chunks: [] as PartSample[], small: [] as PartSample[] }]),
  );
  for (let rep = 0; rep < reps; rep++) {
    for (const pageBytes of pageSizes) {
      const dir = mkdtempSync(join(values.dir, "mirror-pages-"));
      try {
        const mirror = freshMirror(dir, pageBytes);
        const into = samples.get(pageBytes);
        into?.chunks.push(measure(() => writeChunks(mirror, mib)));
        into?.small.push(measure(() => writeSmallFiles(mirror, files)));
        mirror.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const median = (parts: PartSample[], key: keyof PartSample) => summarize(parts.map((p) => p[key])).median;
  console.log(`mirror page size: ${mib} × 1 MiB files, then ${files} small files (medians of ${reps})`);
  console.log("page bytes  chunks CPU ms  chunks wall ms  small CPU ms  small wall ms");
  const rows = pageSizes.map((pageBytes) => {
    const s = samples.get(pageBytes) ?? { chunks: [], small: [] };
    const row = {
      pageBytes,
      chunksCpuMs: median(s.chunks, "cpuMs"),
      chunksWallMs: median(s.chunks, "wallMs"),
      smallCpuMs: median(s.small, "cpuMs"),
      smallWallMs: median(s.small, "wallMs"),
    };
    console.log(
      [row.pageBytes, row.chunksCpuMs, row.chunksWallMs, row.smallCpuMs, row.smallWallMs]
        .map((n, i) => (i === 0 ? String(n).padEnd(10) : n.toFixed(0).padStart(i === 1 ? 13 : 14)))
        .join("  "),
    );
    return { ...row, samples: s };
  });
  mkdirSync(values.out, { recursive: true });
  const file = join(values.out, `mirror-pages-${new Date().toISOString().replaceAll(":", "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ mib, files, reps, dir: values.dir, rows }, null, 2)}\n`);
  console.log(`mirror-pages: wrote ${file}`);
  return 0;
}

process.exitCode = main();
