/**
 * globalSetup of the computerd-fuse project: refuses to run the suite over an addon older than
 * any of its native sources. A checkout that moved to new native code (a pull, a rebase) without
 * `make deps` otherwise mounts with the old addon, whose requests and replies no longer match the
 * JS side: the tests then fail far from the cause, with EIO from the mount or a hang.
 */

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FUSE3_ADDON_PATH } from "../src/mount/fuse3-native.ts";

const NATIVE_DIR = join(import.meta.dirname, "..", "native");

/** The native sources newer than the built addon (none when it is missing: the tests say so). */
export function newerSources(addon = FUSE3_ADDON_PATH, dir = NATIVE_DIR): string[] {
  let built: number;
  try {
    built = statSync(addon).mtimeMs;
  } catch {
    return [];
  }
  return readdirSync(dir)
    .filter((name) => /\.(c|h|gyp)$/.test(name) && statSync(join(dir, name)).mtimeMs > built)
    .sort();
}

/** vitest calls a globalSetup module's named `setup` before the project's first test file. */
export function setup(): void {
  const newer = newerSources();
  if (newer.length > 0) {
    throw new Error(
      `computerd's fuse3 addon is older than ${newer.join(", ")}: run \`make deps\` (or \`npm run build:native -w computerd\`) first`,
    );
  }
}
