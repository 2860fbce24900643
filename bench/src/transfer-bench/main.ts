/**
 * `npm run bench:transfer`: moving bytes between the API, the Durable Object and the container
 * on a fresh local fleet (the local Worker + computerd host). Times API PUT and GET of large files
 * (curl, byte-exact check), the container's first exec and first read after a PUT, a command
 * that writes a large file until its exec returns and until its sync is complete, and workerd's
 * resident memory before, at the peak and after. Prints a table and writes transfer-<time>.json
 * into `--out` (default bench/results).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Fleet } from "@computer/fleet";
import { type Computer, ComputerClient, type ExecResult } from "@computer/sdk";
import { assertSynced, containerArrivals, containerExec } from "../fs-bench/fleet-exec.ts";
import { fleetUnavailable } from "../fs-bench/fleet-run.ts";
import { type Summary, summarize } from "../stats.ts";
import { formatMs, renderTable } from "../table-format.ts";
import { formatProfile, startProfile, stopProfile } from "./cpu-profile.ts";
import { connectInspector, type Inspector } from "./inspector.ts";
import { parseTransferBenchOptions, type TransferBenchOptions, USAGE } from "./options.ts";
import { sampleWorkerdPeak, workerdRss } from "./process-memory.ts";
import { type HeapSampler, sampleWorkerHeap } from "./worker-heap.ts";

const DEFAULT_OUT = fileURLToPath(new URL("../../results/", import.meta.url));
const MiB = 1024 * 1024;
const COMPUTER_ID = "bench-transfer";

/** One row of the table: a timed transfer of `bytes`. */
interface Row {
  what: string;
  bytes: number;
  summary: Summary;
  /** Other numbers of the row (medians), e.g. the fence alone. */
  detail?: Record<string, number>;
  /** workerd's peak resident memory while the row ran (all its repetitions). */
  rssPeakBytes?: number;
  /** The Worker isolate's peak JS heap (used bytes) while the row ran, when the inspector answered. */
  heapPeakBytes?: number;
}

/** The samplers of the run: `mark()` answers the peak since the previous mark. */
let sampler: { mark(): number } = { mark: () => 0 };
let heapSampler: HeapSampler | undefined;

/**
 * Runs one group of rows under a CPU profile of the Worker isolate when `dir` is set: writes
 * `dir/<name>.cpuprofile` and prints its summary.
 */
async function profiled(
  inspector: Inspector | undefined,
  dir: string | undefined,
  name: string,
  run: () => Promise<Row[]>,
): Promise<Row[]> {
  if (dir === undefined || !inspector) return await run();
  await startProfile(inspector);
  try {
    return await run();
  } finally {
    const profile = await stopProfile(inspector);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    progress(`CPU profile of ${name}:\n${formatProfile(profile)}`);
  }
}

/** Stamps each row with the peak RSS and heap since the previous stamp (rows of one call share them). */
function stamped(rows: Row[]): Row[] {
  const peak = sampler.mark();
  const heap = heapSampler?.mark();
  return rows.map((row) => ({
    ...row,
    rssPeakBytes: peak,
    ...(heap === undefined ? {} : { heapPeakBytes: heap }),
  }));
}

/**
 * fetch, sent again once when the connection it reused was already closed by the server (EPIPE,
 * ECONNRESET or undici's "other side closed", before any answer): the SDK's pooled connection sits idle while curl moves the
 * large files, and workerd closes idle ones, which Node's fetch does not retry for a POST.
 */
const freshFetch: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code !== "EPIPE" && code !== "ECONNRESET" && code !== "UND_ERR_SOCKET") throw err;
    return await fetch(input, init);
  }
};

function progress(message: string): void {
  process.stderr.write(`transfer-bench: ${message}\n`);
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

function curl(args: string[]): void {
  const result = spawnSync("curl", ["-sfS", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  if (result.status !== 0) throw new Error(`curl exited ${result.status}: ${String(result.stderr)}`);
}

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

async function timedAsync<T>(run: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await run();
  return [performance.now() - started, value];
}

/** Writes `mib` MiB of random bytes to `file` in pieces (a 1 GiB file never sits in memory); answers its sha-256. */
function randomFile(file: string, mib: number): string {
  const hash = createHash("sha256");
  const fd = openSync(file, "w");
  try {
    for (let left = mib; left > 0; left -= 16) {
      const piece = randomBytes(Math.min(16, left) * MiB);
      hash.update(piece);
      writeSync(fd, piece);
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** The sha-256 of a file, read in pieces. */
async function fileHash(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const piece of createReadStream(file, { highWaterMark: 4 * MiB })) hash.update(piece as Buffer);
  return hash.digest("hex");
}

/**
 * PUT and GET of `mib` MiB of random bytes through the API with curl; the copy must match. Each
 * repetition PUTs new bytes: the same file again finds every chunk stored already, so it would
 * time the DO's deduplication (a second 100 MiB PUT took 219 ms against the first's 610), not a PUT.
 */
async function apiRows(fleet: Fleet, dir: string, mib: number, reps: number): Promise<Row[]> {
  const file = join(dir, `put-${mib}.bin`);
  const url = `${fleet.url}/v1/computers/${COMPUTER_ID}/files/api-${mib}.bin`;
  const auth = ["-H", `Authorization: Bearer ${fleet.adminToken}`];
  const puts: number[] = [];
  const gets: number[] = [];
  for (let i = 0; i < reps; i++) {
    const payloadHash = randomFile(file, mib);
    progress(`PUT ${mib} MiB (${i + 1}/${reps})`);
    puts.push(timed(() => curl([...auth, "-T", file, "-o", "/dev/null", url])));
    const copy = join(dir, `get-${mib}.bin`);
    progress(`GET ${mib} MiB (${i + 1}/${reps})`);
    gets.push(timed(() => curl([...auth, "-o", copy, url])));
    if ((await fileHash(copy)) !== payloadHash) throw new Error(`GET of ${mib} MiB differs from the PUT`);
    rmSync(copy);
  }
  rmSync(file);
  // The container rows time what the container sees of their own file, not of these.
  curl([...auth, "-X", "DELETE", "-o", "/dev/null", url]);
  return [
    { what: `API PUT ${mib} MiB`, bytes: mib * MiB, summary: summarize(puts) },
    { what: `API GET ${mib} MiB`, bytes: mib * MiB, summary: summarize(gets) },
  ];
}

/**
 * A new file PUT through the API (curl: a long-idle pooled connection of Node's fetch can be
 * closed by the server under it), then the container's first exec (`true`) and its first read.
 */
async function seenRows(
  fleet: Fleet,
  dir: string,
  computer: Computer,
  mib: number,
  reps: number,
): Promise<Row[]> {
  const first: number[] = [];
  const firstMetrics: Record<string, number>[] = [];
  const read: number[] = [];
  for (let i = 0; i < reps; i++) {
    const payload = randomBytes(mib * MiB);
    const name = `seen-${i}.bin`;
    const file = join(dir, name);
    writeFileSync(file, payload);
    const url = `${fleet.url}/v1/computers/${COMPUTER_ID}/files/${name}`;
    curl(["-H", `Authorization: Bearer ${fleet.adminToken}`, "-T", file, "-o", "/dev/null", url]);
    rmSync(file);
    progress(`container: first exec after a ${mib} MiB PUT (${i + 1}/${reps})`);
    const [ms, result] = await timedAsync(() => containerExec(computer, "true"));
    assertSynced(result);
    first.push(ms);
    firstMetrics.push(result.metrics);
    const [readMs, sum] = await timedAsync(() => containerExec(computer, `sha256sum ${name}`));
    assertSynced(sum);
    if (!sum.stdout.startsWith(sha256(payload))) throw new Error(`the container read other bytes of ${name}`);
    read.push(readMs);
    await computer.files.remove(name);
  }
  return [
    {
      what: `container: first exec (true) after a ${mib} MiB PUT`,
      bytes: mib * MiB,
      summary: summarize(first),
      detail: medians(firstMetrics),
    },
    { what: `container: then sha256sum of that file`, bytes: mib * MiB, summary: summarize(read) },
  ];
}

/** The median of each counter over repetitions (the DO's `X-Exec-Metrics`). */
function medians(samples: readonly Record<string, number>[]): Record<string, number> {
  const keys = new Set(samples.flatMap((s) => Object.keys(s)));
  return Object.fromEntries([...keys].map((k) => [k, summarize(samples.map((s) => s[k] ?? 0)).median]));
}

/** Waits until the exec's sync is complete (the DO retries a pending one); answers when. */
async function syncComplete(computer: Computer, result: ExecResult): Promise<void> {
  let current = result;
  const deadline = Date.now() + 600_000;
  while (current.sync.status !== "complete") {
    if (Date.now() > deadline) throw new Error(`sync of ${result.id} still ${current.sync.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    current = await computer.exec.get(result.id);
  }
}

/** A command writing `mib` MiB in the container: until "done", until its exec returns, until synced. */
async function writeRows(computer: Computer, mib: number, reps: number): Promise<Row[]> {
  const done: number[] = [];
  const writeMetrics: Record<string, number>[] = [];
  const returned: number[] = [];
  const synced: number[] = [];
  for (let i = 0; i < reps; i++) {
    const name = `written-${i}.bin`;
    progress(`container: a command writing ${mib} MiB (${i + 1}/${reps})`);
    const started = performance.now();
    const { events, metrics } = await containerArrivals(
      computer,
      `head -c ${mib}M /dev/urandom > ${name} && echo done`,
    );
    writeMetrics.push(metrics);
    const exit = events.at(-1);
    if (exit?.type !== "exit" || exit.result.exitCode !== 0)
      throw new Error(`write failed: ${JSON.stringify(exit)}`);
    const out = events.find((e) => e.type === "stdout");
    done.push((out?.at ?? Number.NaN) - started);
    returned.push(exit.at - started);
    await syncComplete(computer, exit.result);
    synced.push(performance.now() - started);
    const stat = await computer.files.stat(name);
    if (stat.size !== mib * MiB) throw new Error(`the DO holds ${stat.size} bytes of ${name}`);
    await computer.files.remove(name);
  }
  const bytes = mib * MiB;
  return [
    { what: `container: command writing ${mib} MiB, its own output`, bytes, summary: summarize(done) },
    {
      what: `container: ... until the exec returns`,
      bytes,
      summary: summarize(returned),
      detail: medians(writeMetrics),
    },
    { what: `container: ... until sync is complete`, bytes, summary: summarize(synced) },
  ];
}

/** The same command on this machine's disk, as the baseline of the command's own time. */
function diskRow(mib: number, reps: number): Row {
  const dir = mkdtempSync(join("/var/tmp", "transfer-bench-"));
  try {
    const samples = Array.from({ length: reps }, () =>
      timed(() => execFileSync("sh", ["-c", `head -c ${mib}M /dev/urandom > f && sync f`], { cwd: dir })),
    );
    return { what: `disk: the same command (+ fsync)`, bytes: mib * MiB, summary: summarize(samples) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The DO's SQL statements and sync round trips of a row, when it has them. */
function counters(detail: Record<string, number> | undefined): string {
  if (!detail) return "";
  const wanted = ["doSql", "doSyncCalls", "doSyncChanges"];
  return wanted
    .filter((k) => detail[k] !== undefined)
    .map((k) => `${k} ${detail[k]}`)
    .join(", ");
}

function table(rows: Row[], memory: Record<string, number>): string {
  const body = rows.map((r) => [
    r.what,
    formatMs(r.summary.median),
    formatMs(r.summary.min),
    formatMs(r.summary.max),
    (r.bytes / MiB / (r.summary.median / 1000)).toFixed(1),
    r.rssPeakBytes === undefined ? "" : `${(r.rssPeakBytes / MiB).toFixed(0)} MiB`,
    r.heapPeakBytes === undefined ? "" : `${(r.heapPeakBytes / MiB).toFixed(1)} MiB`,
    counters(r.detail),
  ]);
  const mem = Object.entries(memory).map(([k, v]) => [
    k === "heapPeak" ? "Worker JS heap peak" : `workerd RSS ${k}`,
    "",
    "",
    "",
    `${(v / MiB).toFixed(0)} MiB`,
  ]);
  return renderTable(
    ["transfer", "median ms", "min", "max", "MiB/s", "workerd RSS peak", "JS heap peak", "counters"],
    [...body, ...mem],
    1,
  );
}

function options(argv: readonly string[]): TransferBenchOptions | number {
  try {
    const parsed = parseTransferBenchOptions(argv, DEFAULT_OUT);
    if (parsed) return parsed;
    console.log(USAGE);
    return 0;
  } catch (err) {
    console.error(`transfer-bench: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
}

async function main(): Promise<number> {
  const parsed = options(process.argv.slice(2));
  if (typeof parsed === "number") return parsed;
  const unavailable = parsed.noContainer ? "--no-container" : fleetUnavailable();
  if (unavailable !== undefined) progress(`container rows skipped: ${unavailable}`);
  const startedAt = new Date().toISOString();
  progress("starting the fleet");
  const { startFleet } = await import("@computer/fleet");
  const fleet = await startFleet({ computerdHost: unavailable === undefined });
  const stop = () => void fleet.stop().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  const dir = mkdtempSync(join(tmpdir(), "transfer-bench-"));
  const rows: Row[] = [];
  const memory: Record<string, number> = {};
  let inspector: Inspector | undefined;
  try {
    const client = new ComputerClient({ url: fleet.url, token: fleet.adminToken, fetch: freshFetch });
    await client.computers.create(COMPUTER_ID, { quotaBytes: 8 * 1024 ** 3 });
    const computer = client.computer(COMPUTER_ID);
    if (unavailable === undefined) assertSynced(await containerExec(computer, "true"));
    memory.before = workerdRss();
    const peak = sampleWorkerdPeak();
    sampler = peak;
    peak.mark();
    // One client: an inspector may close a second one ("Too many clients" from wrangler dev's proxy).
    inspector = await connectInspector(fleet.inspectorUrl);
    if (inspector) heapSampler = sampleWorkerHeap(inspector);
    else progress("the inspector did not answer: no JS heap figures or profiles");
    const profile = (name: string, run: () => Promise<Row[]>) =>
      profiled(inspector, parsed.cpuProfileDir, name, run);
    for (const mib of parsed.sizesMiB)
      rows.push(...stamped(await profile(`api-${mib}`, () => apiRows(fleet, dir, mib, parsed.reps))));
    if (unavailable === undefined) {
      const mib = parsed.containerMiB;
      rows.push(...stamped(await profile("seen", () => seenRows(fleet, dir, computer, mib, parsed.reps))));
      rows.push(...stamped(await profile("write", () => writeRows(computer, mib, parsed.reps))));
    }
    memory.peak = peak.stop();
    if (heapSampler) memory.heapPeak = heapSampler.stop();
    inspector?.close();
    memory.after = workerdRss();
  } finally {
    process.off("SIGINT", stop);
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (unavailable === undefined) rows.push(diskRow(parsed.containerMiB, parsed.reps));
  console.log(table(rows, memory));
  const document = {
    schema: "computer.transfer-bench/1",
    startedAt,
    finishedAt: new Date().toISOString(),
    host: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "", node: process.version },
    commit: execFileSync("git", ["rev-parse", "HEAD"]).toString().trim(),
    options: { ...parsed, container: unavailable ?? "measured" },
    rows,
    workerdRssBytes: Object.fromEntries(Object.entries(memory).filter(([k]) => k !== "heapPeak")),
    workerHeapPeakBytes: memory.heapPeak ?? null,
  };
  mkdirSync(parsed.outDir, { recursive: true });
  const out = join(parsed.outDir, `transfer-${startedAt.replaceAll(":", "-")}.json`);
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  progress(`wrote ${out}`);
  return 0;
}

process.exitCode = await main();
