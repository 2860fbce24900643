/**
 * The baselines: the same scenarios on node:fs (synchronous calls, no fsync, as the vfs's
 * synchronous=NORMAL does not fsync each commit) in a fresh directory per repetition on tmpfs
 * and on a real disk, so every vfs figure has a ratio measured in the same run.
 */
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { BenchFs } from "./bench-fs.ts";
import type { BenchSize, Scenario } from "./scenarios.ts";
import type { Sample, Target } from "./target.ts";

/** BenchFs over node:fs below `root`. pwrite opens and closes the file per call, as a path-based API must. */
function nodeFs(root: string): BenchFs {
  const at = (path: string) => join(root, path);
  return {
    mkdir: (path, options) => {
      mkdirSync(at(path), options);
    },
    writeFile: (path, data) => writeFileSync(at(path), data),
    pwrite: (path, offset, data) => {
      const fd = openSync(at(path), "r+");
      try {
        writeSync(fd, data, 0, data.length, offset);
      } finally {
        closeSync(fd);
      }
    },
    writeStream: async (path, source) => {
      const fd = openSync(at(path), "w");
      try {
        for await (const piece of source) writeSync(fd, piece);
      } finally {
        closeSync(fd);
      }
    },
    readFile: (path) => readFileSync(at(path)),
    stat: (path) => statSync(at(path)),
    list: (path) => readdirSync(at(path), { withFileTypes: true }),
    rename: (from, to) => renameSync(at(from), at(to)),
  };
}

/** A node:fs baseline in fresh directories under `parentDir`. */
export function fsTarget(id: "tmpfs" | "disk", parentDir: string): Target {
  let dir: string | undefined;
  return {
    id,
    name: `node:fs ${id} (${parentDir})`,
    timing: "performance.now() around the call, in process",
    async start() {
      dir = mkdtempSync(join(parentDir, "vfs-bench-fs-"));
    },
    async runOnce(scenario: Scenario, size: BenchSize, rep: number): Promise<Sample> {
      if (dir === undefined) throw new Error(`${id} target not started`);
      const root = join(dir, `${scenario.id}-${rep}`);
      mkdirSync(root);
      try {
        const fs = nodeFs(root);
        const prepared = scenario.setup(fs, size);
        const t0 = performance.now();
        const result = await scenario.run(fs, size, prepared);
        const ms = performance.now() - t0;
        scenario.check(fs, size, prepared, result);
        return { ms };
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
    async stop() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
