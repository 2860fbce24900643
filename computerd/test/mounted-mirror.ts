/**
 * Test helper: a fresh mirror mounted in this process with the fuse3 addon (for suites that
 * change the mirror behind the mount's back or fill its quota), whether this machine can mount
 * it, a describe block around one such mount, and a shell to look through the mount. Whatever
 * touches the mount runs in a child process: this process serves it, and a FUSE daemon must
 * not wait on its own callers.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe } from "vitest";
import { type Mirror, openMirror } from "../src/mirror/open-mirror.ts";
import { type Mount, type MountOptions, openMount } from "../src/mount/backend.ts";
import { fuse3Available } from "../src/mount/fuse3-backend.ts";

/**
 * True when this machine can mount with the fuse3 addon. fuse3 is computerd's mount backend,
 * so where /dev/fuse exists a missing addon is an error, never a quiet skip (ensure-deps builds it).
 */
export const fuse3Mountable = existsSync("/dev/fuse") && requireFuse3();

function requireFuse3(): true {
  if (fuse3Available()) return true;
  throw new Error(
    "computerd/native is not built (npm run build:native -w computerd): the fuse3 tests cannot run",
  );
}

/** Options of mountFreshMirror. */
export interface FreshMirrorOptions {
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

/** Opens an empty mirror in a new temporary directory and mounts it there with fuse3. */
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
      backend: "fuse3",
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

/**
 * A describe block around one fresh mount (made before its tests, removed after them), or a
 * skip that says why where this machine has no FUSE (canRun: a failure on CI). `body` gets the
 * mount; its fields are there once the block's tests run.
 */
export function describeFreshMount(
  title: string,
  options: FreshMirrorOptions,
  body: (mounted: MountedMirror) => void,
): void {
  describe.skipIf(!canRun(title, missingFuse()) || !fuse3Mountable)(title, () => {
    let current: MountedMirror | undefined;
    const live = (): MountedMirror => {
      if (!current) throw new Error(`${title}: the mount is made in beforeAll`);
      return current;
    };
    beforeAll(async () => {
      current = await mountFreshMirror(options);
    });
    afterAll(() => current?.close());
    body({
      get mirror() {
        return live().mirror;
      },
      get mount() {
        return live().mount;
      },
      get mnt() {
        return live().mnt;
      },
      close: () => live().close(),
    });
  });
}

const run = promisify(execFile);

/** Runs `script` with sh in a child process; resolves with its stdout, rejects when it fails. */
export async function sh(script: string): Promise<string> {
  const { stdout } = await run("sh", ["-c", script], { cwd: "/" });
  return stdout;
}
