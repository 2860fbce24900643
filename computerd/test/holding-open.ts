/**
 * A Python process that opens a file on the mount for writing, runs `writes` (Python over `fd`),
 * says so, and holds the file open until `close()`: for tests of what the mount does while a
 * writer still holds its handle (write runs, the loop on the writer's CPU).
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { expect } from "vitest";

export interface HeldOpen {
  /** Closes the file and waits for the process to exit. */
  close(): Promise<void>;
}

/** `before` runs ahead of the open (e.g. pinning the process to a CPU). */
export async function holdingOpen(path: string, writes: string, before = ""): Promise<HeldOpen> {
  const writer = spawn(
    "python3",
    [
      "-c",
      `import os, sys
${before}
fd = os.open(${JSON.stringify(path)}, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
${writes}
print("written", flush=True)
sys.stdin.read()
os.close(fd)`,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const [line] = (await once(writer.stdout, "data")) as [Buffer];
  expect(line.toString().trim()).toBe("written");
  return {
    async close() {
      writer.stdin.end();
      await once(writer, "exit");
    },
  };
}
