/**
 * vitest project "vfs": the vfs tests on node, over node:sqlite.
 * vitest.workerd.config.ts runs the same files inside workerd; a file named
 * `*.node.test.ts` runs only here, `*.workerd.test.ts` only there.
 */
import { defineConfig } from "vitest/config";

/** Test files shared by both vfs projects. */
export const vfsTestFiles = ["src/**/*.test.ts", "test/**/*.test.ts"];

export default defineConfig({
  test: {
    name: "vfs",
    environment: "node",
    include: vfsTestFiles,
    exclude: ["**/node_modules/**", "**/*.workerd.test.ts"],
  },
});
