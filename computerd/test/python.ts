/** Python snippets the mount tests run as a separate process (their syscalls go through FUSE). */

import { execFile } from "node:child_process";

/** Runs a Python snippet with `os` and `errno` imported; resolves with its output lines. */
export function py(body: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile("python3", ["-c", `import errno, os\n${body}`], { cwd: "/" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`python failed: ${stderr}`));
      else resolve(stdout.trim().split("\n"));
    });
  });
}
