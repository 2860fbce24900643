/**
 * The cached builds of images/ that `make dev` and the e2e fleet start from, their progress
 * lines passed on as they come: the image's root filesystem (images/rootfs/build-rootfs.sh,
 * what `computerd host` runs commands over) and the image itself (images/build-image.sh, for
 * `make dev CONTAINERS=docker`). Each script prints its result on its last stdout line.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./wrangler-dev.ts";

type Log = (line: string) => void;

/** Runs one of images/'s build scripts; resolves with the last line it printed on stdout. */
function runBuild(script: string, log: Log): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${REPO_ROOT}/${script}`, [], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const tail: string[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    createInterface({ input: child.stderr }).on("line", (line) => {
      log(line);
      tail.push(line);
      if (tail.length > 30) tail.shift();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const result = out.trim().split("\n").pop() ?? "";
      if (code === 0 && result !== "") resolve(result);
      else reject(new Error(`${script} failed (${code}):\n${tail.join("\n")}`));
    });
  });
}

const toStderr: Log = (line) => console.error(line);

/** The image's root filesystem folder (built on first use, then cached). */
export function ensureRootfs(log: Log = toStderr): Promise<string> {
  return runBuild("images/rootfs/build-rootfs.sh", log);
}

/**
 * The root filesystem where this process can use it (root: debootstrap, id-mapped mounts),
 * else "": commands then run over the host's system folders as an unprivileged user.
 */
export async function rootfsIfRoot(log?: Log): Promise<string> {
  return process.getuid?.() === 0 ? ensureRootfs(log) : "";
}

/** The computerd image's reference (`make image`: starts a docker engine when none answers). */
export function ensureImage(log: Log = toStderr): Promise<string> {
  return runBuild("images/build-image.sh", log);
}
