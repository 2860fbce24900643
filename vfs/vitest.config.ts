/**
 * vitest project "vfs": the vfs tests on node, over node:sqlite.
 * vitest.workerd.config.ts runs the same files inside workerd; a file named
 * `*.node.test.ts` runs only here, `*.workerd.test.ts` only there.
 */
import { defineConfig } from "vitest/config";

/** Test files shared by both vfs projects. */
export const vfsTestFiles = ["src/**/*.test.ts", "test/**/*.test.ts"];

/**
 * The unit projects run side by side on 2-core machines; the few tests that hash and compare
 * megabytes take a second alone and over 5 s (vitest's default) when the machine is loaded.
 * A hang still fails, later.
 */
export const vfsTestTimeoutMs = 20_000;

export default defineConfig({
  test: {
    name: "vfs",
    environment: "node",
    include: vfsTestFiles,
    testTimeout: vfsTestTimeoutMs,
    exclude: ["**/node_modules/**", "**/*.workerd.test.ts"],
  },
});
