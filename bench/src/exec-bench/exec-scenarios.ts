/**
 * What the exec benchmark runs: a trivial program per runtime (round trip, first call and warm),
 * and a shell script doing 1,000 file operations (250 each of write, read, rename, delete),
 * with the same operations as a js module and, as baselines measured in the same run, as a
 * local bash script on tmpfs and on disk.
 */
import type { Runtime } from "./timed-exec.ts";

/** The trivial program of each runtime. */
export const TRIVIAL: Record<Runtime, string> = {
  container: "true",
  shell: "true",
  js: "export default () => 0;",
};

/** Files per phase of the file-operations script (4 phases: 1,000 operations). */
export const FILES = 250;

/** The 1,000-operation bash script, run in `dir` (created fresh, left empty). */
export function fileOpsScript(dir: string): string {
  return [
    `mkdir -p ${dir} && cd ${dir}`,
    `for i in $(seq 1 ${FILES}); do echo "line $i" > f$i.txt; done`,
    `for i in $(seq 1 ${FILES}); do cat f$i.txt > /dev/null; done`,
    `for i in $(seq 1 ${FILES}); do mv f$i.txt g$i.txt; done`,
    `for i in $(seq 1 ${FILES}); do rm g$i.txt; done`,
    `cd .. && rmdir ${dir}`,
  ].join("\n");
}

/** The same 1,000 operations as a js module, each awaited in turn like the shell does. */
export function fileOpsModule(dir: string): string {
  return `import { mkdir, writeFile, readFile, rename, rm, rmdir } from "node:fs/promises";
export default async () => {
  await mkdir(${JSON.stringify(dir)}, { recursive: true });
  for (let i = 1; i <= ${FILES}; i++) await writeFile(\`${dir}/f\${i}.txt\`, \`line \${i}\\n\`);
  for (let i = 1; i <= ${FILES}; i++) await readFile(\`${dir}/f\${i}.txt\`);
  for (let i = 1; i <= ${FILES}; i++) await rename(\`${dir}/f\${i}.txt\`, \`${dir}/g\${i}.txt\`);
  for (let i = 1; i <= ${FILES}; i++) await rm(\`${dir}/g\${i}.txt\`);
  await rmdir(${JSON.stringify(dir)});
};`;
}
