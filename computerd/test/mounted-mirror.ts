/**
 * Test helper: a fresh mirror mounted in this process (for suites that change the mirror
 * behind the mount's back or fill its quota), the FUSE backends this machine can mount, and a
 * shell to look through the mount. Whatever touches the mount runs in a child process: this
 * process serves it, and a FUSE daemon must not wait on its own callers.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Mirror, openMirror } from "../src/mirror/open-mirror.ts";
import { type Mount, type MountOptions, openMount } from "../src/mount/backend.ts";
import { fuse3Available } from "../src/mount/fuse3-backend.ts";

/** True when this machine can mount with fuse-native (it needs only /dev/fuse). */
export const fuseMountable = existsSync("/dev/fuse");

/**
 * True when this machine can mount with the fuse3 addon. fuse3 is computerd's default backend,
 * so where /dev/fuse exists a missing addon is an error, never a quiet skip (ensure-deps builds it).
 */
export const fuse3Mountable = fuseMountable && requireFuse3();

function requireFuse3(): true {
  if (fuse3Available()) return true;
  throw new Error(
    "computerd/native is not built (npm run build:native -w computerd): the fuse3 tests cannot run",
  );
}

/** Both FUSE backends, each with whether this machine can mount it. */
export const FUSE_BACKENDS = [
  { backend: "fuse", available: fuseMountable },
  { backend: "fuse3", available: fuse3Mountable },
] as const;

/** Options of mountFreshMirror. */
export interface FreshMirrorOptions {
  backend: "fuse" | "fuse3";
  /** Prefix of the temporary directory that holds the mirror's state and the mount point. */
  prefix: string;
  /** The mirror's quota in bytes, set before mounting. */
  quota?: number;
  fuse?: MountOptions["fuse"];
}

/** A fresh mirror served at `mnt`. */
export interface MountedMirror {
  readonly mirror: Mirror;
  readonly mount: Mount;
  readonly mnt: string;
  /** Unmounts, closes the mirror and removes the temporary directory. */
  close(): Promise<void>;
}

/** Opens an empty mirror in a new temporary directory and mounts it there with `backend`. */
export async function mountFreshMirror(options: FreshMirrorOptions): Promise<MountedMirror> {
  const root = mkdtempSync(join(tmpdir(), options.prefix));
  const mnt = join(root, "mnt");
  const mirror = openMirror(join(root, "state"));
  const removeState = () => {
    mirror.close();
    rmSync(root, { recursive: true, force: true });
  };
  let mount: Mount;
  try {
    if (options.quota !== undefined) mirror.vfs.setQuota(options.quota);
    mount = await openMount({
      backend: options.backend,
      mirror,
      mountPoint: mnt,
      log: () => {},
      fuse: options.fuse,
    });
  } catch (err) {
    removeState();
    throw err;
  }
  return {
    mirror,
    mount,
    mnt,
    async close() {
      await mount.unmount();
      removeState();
    },
  };
}

const run = promisify(execFile);

/** Runs `script` with sh in a child process; resolves with its stdout, rejects when it fails. */
export async function sh(script: string): Promise<string> {
  const { stdout } = await run("sh", ["-c", script], { cwd: "/" });
  return stdout;
}
