/**
 * Starting `computerd host` (the local container launcher) next to the local Worker, in the same
 * process group: shared by `make dev` (scripts/dev.ts) and the end-to-end fleet. The Worker
 * finds it through COMPUTERD_HOST_URL and COMPUTERD_HOST_TOKEN (see worker/src/env.ts).
 */
import type { ProcessGroup, Supervised } from "./process-group.ts";
import { REPO_ROOT } from "./wrangler-dev.ts";

/** Where and how to run the host. */
export interface ComputerdHostOptions {
  port: number;
  /** Per-computer state and mount points. */
  dir: string;
  token: string;
  /** `bwrap` (default) or `none`. */
  sandbox?: "bwrap" | "none";
  /** The image's root filesystem commands run over (image-builds.ts); "" or absent: the host's system folders. */
  rootfs?: string;
  echo?: boolean;
}

/** Starts `computerd host` in `group`. */
export function startComputerdHost(group: ProcessGroup, options: ComputerdHostOptions): Supervised {
  return group.start({
    name: "computerd",
    command: process.execPath,
    args: [
      `${REPO_ROOT}/computerd/bin/computerd.js`,
      "host",
      "--port",
      String(options.port),
      "--dir",
      options.dir,
      "--sandbox",
      options.sandbox ?? "bwrap",
      ...(options.rootfs ? ["--rootfs", options.rootfs] : []),
    ],
    cwd: REPO_ROOT,
    env: { ...process.env, COMPUTERD_HOST_TOKEN: options.token },
    echo: options.echo ?? true,
  });
}

/** The Worker variables that point it at the host. */
export function hostVars(port: number, token: string): Record<string, string> {
  return { COMPUTERD_HOST_URL: `http://127.0.0.1:${port}`, COMPUTERD_HOST_TOKEN: token };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls the host's `GET /health` until it answers; throws with its output if it exits first. */
export async function waitForHost(port: number, proc: Supervised, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited()) throw new Error(`computerd host exited:\n${proc.recentOutput()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`computerd host did not answer within ${timeoutMs} ms:\n${proc.recentOutput()}`);
}
