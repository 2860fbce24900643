/**
 * Test support for the exec runner: an ExecTable over a temporary directory with short,
 * test-friendly limits, and a helper that collects a reader's events.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { baseEnv } from "../src/exec/env.ts";
import { DEFAULT_WATERMARKS, type LogReader } from "../src/exec/exec-log.ts";
import { ExecTable, type ExecTableOptions } from "../src/exec/exec-table.ts";
import { Spawner } from "../src/exec/spawner.ts";
import type { OutputEvent } from "../src/exec/types.ts";
import { plainShell } from "../src/exec/wrapper.ts";

/** A fresh temporary directory. */
export function tempDir(prefix = "computerd-exec-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The options of a test table: cwd is a fresh temporary directory unless overridden. */
export function testTableOptions(overrides: Partial<ExecTableOptions> = {}): ExecTableOptions {
  return {
    wrapper: plainShell,
    baseEnv: baseEnv(process.env),
    killGraceMs: 500,
    stdioGraceMs: 200,
    watermarks: DEFAULT_WATERMARKS,
    retainFinished: 16,
    ...overrides,
    defaults: {
      cwd: tempDir(),
      timeoutMs: 20_000,
      maxTimeoutMs: 60_000,
      outputCap: 1024 * 1024,
      ...overrides.defaults,
    },
  };
}

/** An ExecTable for tests. */
export function testTable(overrides: Partial<ExecTableOptions> = {}): ExecTable {
  return new ExecTable(testTableOptions(overrides));
}

/** Reads `reader` to its end. */
export async function readAll(reader: LogReader): Promise<OutputEvent[]> {
  const events: OutputEvent[] = [];
  for (let event = await reader.next(); event; event = await reader.next()) events.push(event);
  return events;
}

/** Who spawns the commands of a suite run by `eachSpawner`. */
export type SpawnedBy = "the daemon" | "the spawner";

/**
 * Runs `suite` twice: with commands spawned by the daemon itself and by a spawner (spawner.ts),
 * which must not change what a command sees or how it ends. `table` is testTable with that
 * choice; `by` says which run it is.
 */
export function eachSpawner(
  suite: (table: (overrides?: Partial<ExecTableOptions>) => ExecTable, by: SpawnedBy) => void,
): void {
  describe.each(["the daemon", "the spawner"] as const)("spawned by %s", (by) => {
    let spawner: Spawner | undefined;
    beforeAll(async () => {
      if (by === "the spawner") spawner = await Spawner.start();
    });
    afterAll(() => spawner?.close());
    suite((overrides = {}) => testTable({ spawner: () => spawner, ...overrides }), by);
  });
}
