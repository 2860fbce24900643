/**
 * vitest project "sdk": the SDK's pure tests on node (transport, errors, SSE, base64, routes).
 * vitest.workerd.config.ts runs the same files inside workerd, to show the core runs in a Worker.
 */
import { defineConfig } from "vitest/config";

/** Test files of the SDK's platform-free core, shared by both projects. */
export const sdkTestFiles = ["src/**/*.test.ts"];

export default defineConfig({
  test: {
    name: "sdk",
    root: import.meta.dirname,
    environment: "node",
    include: sdkTestFiles,
    exclude: ["**/node_modules/**", "src/node/**", "src/cli/**"],
  },
});
