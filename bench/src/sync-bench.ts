/**
 * `npm run -w @computer/bench sync -- [--files N] [--batch N]`: what syncing many small files
 * costs the two sync endpoints, on node:sqlite in memory. The container side writes N files
 * (`/many/f<i>`, depth 2) and uploads them to the DO side; then the DO side looks for changes
 * to push (the echo scan). Then the same for N/10 files with two names each (hard links,
 * `/linked/f<i>` and `/linked/g<i>`). Reports SQL statements per name on each side (deterministic: what a
 * Durable Object pays per statement is what scales) and wall-clock time, as a table and one
 * JSON document in bench/results/sync-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { openVfs } from "@computer/vfs";
import { nodeSqlite, sha256Hex } from "@computer/vfs/node";
import { SyncEndpoint, SyncLink } from "@computer/vfs/sync";
import { type CountingSql, countingSql } from "./counting-sql.ts";
import { fileTimestamp } from "./report.ts";
import { formatMs, renderTable } from "./table-format.ts";

interface Step {
  step: string;
  ms: number;
  /** Statements on the container side (the mirror) and on the DO side. */
  containerStatements: number;
  doStatements: number;
  batches: number;
  /** Names (paths) the step synced: statements are reported per name. */
  names: number;
}

const { values } = parseArgs({
  options: { files: { type: "string", default: "10000" }, batch: { type: "string", default: "500" } },
});
const files = Number(values.files);
const maxChanges = Number(values.batch);

function side(name: "do" | "container"): { sql: CountingSql; endpoint: SyncEndpoint } {
  const sql = countingSql(nodeSqlite(new DatabaseSync(":memory:")));
  const vfs = openVfs(sql, { sha256: sha256Hex });
  return { sql, endpoint: new SyncEndpoint(vfs, sql, { side: name, sha256: sha256Hex }) };
}

const container = side("container");
const durable = side("do");
const upload = new SyncLink(container.endpoint, durable.endpoint);
const push = new SyncLink(durable.endpoint, container.endpoint);
await upload.drain();
await push.drain();
const mirror = container.endpoint.local.vfs;
mirror.mkdir("/many");
for (let i = 0; i < files; i++) mirror.writeFile(`/many/f${i}`, `${i}\n`);

async function measure(step: string, link: SyncLink, names: number): Promise<Step> {
  container.sql.reset();
  durable.sql.reset();
  const started = performance.now();
  const report = await link.drain({ limits: { maxChanges } });
  return {
    step,
    ms: performance.now() - started,
    containerStatements: container.sql.counts().statements,
    doStatements: durable.sql.counts().statements,
    batches: report.batches,
    names,
  };
}

const steps = [
  await measure(`upload ${files} new files`, upload, files),
  await measure("DO push scan after it (echoes)", push, files),
];
const linked = Math.max(1, Math.floor(files / 10));
mirror.mkdir("/linked");
for (let i = 0; i < linked; i++) {
  mirror.writeFile(`/linked/f${i}`, `linked ${i}\n`);
  mirror.link(`/linked/f${i}`, `/linked/g${i}`);
}
steps.push(
  await measure(`upload ${linked} files with 2 names`, upload, 2 * linked),
  await measure("DO push scan after it (echoes)", push, 2 * linked),
);
console.log(
  renderTable(
    ["step", "ms", "batches", "container stmts/name", "DO stmts/name"],
    steps.map((s) => [
      s.step,
      formatMs(s.ms),
      String(s.batches),
      (s.containerStatements / s.names).toFixed(2),
      (s.doStatements / s.names).toFixed(2),
    ]),
    1,
  ),
);
const outDir = new URL("../results/", import.meta.url);
mkdirSync(outDir, { recursive: true });
const out = new URL(`sync-${fileTimestamp(new Date())}.json`, outDir);
writeFileSync(
  out,
  `${JSON.stringify({ schema: "computer.sync-bench/1", files, maxChanges, steps }, null, 2)}\n`,
);
console.log(`\nJSON: ${out.pathname}`);
