/**
 * vitest project "computerd-fuse": the FUSE conformance suite (test/*.test.ts).
 * It mounts real filesystems, so files run one at a time; it skips only when
 * /dev/fuse is absent, and refuses to start over a stale addon (test/addon-fresh.ts).
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "computerd-fuse",
    root: import.meta.dirname,
    environment: "node",
    include: ["test/**/*.test.ts"],
    // A stale addon fails the suite at once, naming the sources it predates (addon-fresh.ts).
    globalSetup: ["test/addon-fresh.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
