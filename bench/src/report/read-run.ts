/** Reading fs-bench documents from disk, with a clear error for anything else. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FS_BENCH_SCHEMA, type FsBenchDocument } from "../fs-bench/document.ts";

/** Parses `text` as an fs-bench document; `source` names it in errors. */
export function parseRun(text: string, source: string): FsBenchDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const doc = value as Partial<FsBenchDocument> | null;
  if (
    doc === null ||
    typeof doc !== "object" ||
    doc.schema !== FS_BENCH_SCHEMA ||
    !Array.isArray(doc.results)
  )
    throw new Error(`${source}: not an fs-bench document (schema ${FS_BENCH_SCHEMA})`);
  return doc as FsBenchDocument;
}

/** Reads and parses the document at `path`. */
export function readRun(path: string): FsBenchDocument {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseRun(text, path);
}

/** The fs-bench documents in `dir` (fs-*.json), oldest first (the names sort by start time). */
export function runsIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /^fs-.*\.json$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}
