/**
 * The Durable Object's half of `npm run bench:space`: worker/test/space.test.ts run inside workerd
 * (the Worker's own vitest project) with SPACE_TEST_MIB = the size, so the file goes through the
 * HTTP API into a real DO's SQLite, is deleted, and the alarm's GC runs on a clock moved past
 * its window. The test asserts the storage is back within 10% and prints its sizes on one
 * `space-do:` line, read here.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The sizes the test printed (bytes; times in ms). */
export interface DoSpace {
  mib: number;
  start: number;
  peak: number;
  withinWindow: number;
  end: number;
  writeMs: number;
  gcMs: number;
  /** Whether the test passed (its own assertions: back within 10%, the kept file intact). */
  passed: boolean;
}

export function measureDoSpace(mib: number): DoSpace {
  const run = spawnSync("npx", ["vitest", "run", "--project", "worker", "test/space.test.ts"], {
    cwd: ROOT,
    env: { ...process.env, SPACE_TEST_MIB: String(mib), FORCE_COLOR: "0" },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  const line = /space-do: (\{.*\})/.exec(output);
  if (!line?.[1])
    throw new Error(`the DO space test printed no sizes (exit ${run.status}):\n${output.slice(-4000)}`);
  return { ...(JSON.parse(line[1]) as Omit<DoSpace, "passed">), passed: run.status === 0 };
}
