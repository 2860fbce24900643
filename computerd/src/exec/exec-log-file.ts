/**
 * The optional on-disk copy of an exec's log: one JSON line per output event, then one with
 * the result. Lets a restarted daemon, or one that has let the exec go from memory, still
 * answer for a finished exec.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExecResult, OutputEvent } from "./types.ts";

/** The log file of exec `id` in `dir`. Ids are checked before they get here. */
export function execLogPath(dir: string, id: string): string {
  return join(dir, `${id}.jsonl`);
}

/** Appends events and the result to one file, asynchronously and in order. */
export class ExecLogFile {
  readonly #stream: WriteStream;

  constructor(path: string) {
    this.#stream = createWriteStream(path, { flags: "a", mode: 0o600 });
    // A full disk must not take the exec down with it; the in-memory log stays whole.
    this.#stream.on("error", () => {});
  }

  /** Appends one output event. */
  event(event: OutputEvent): void {
    this.#stream.write(`${JSON.stringify(event)}\n`);
  }

  /** Appends the result and closes the file. */
  finish(result: ExecResult): void {
    this.#stream.end(`${JSON.stringify({ result })}\n`);
  }
}

/** What a log file holds. `result` is missing when the daemon stopped before the exec ended. */
export interface StoredExec {
  events: OutputEvent[];
  result?: ExecResult;
}

/** Reads a log file; undefined when there is none. A torn last line (a crash) is skipped. */
export async function readExecLogFile(path: string): Promise<StoredExec | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  const stored: StoredExec = { events: [] };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if ("result" in value) stored.result = value.result as ExecResult;
    else stored.events.push(value as OutputEvent);
  }
  return stored;
}
