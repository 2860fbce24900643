/**
 * vitest project "computerd-fuse": the FUSE conformance suite (test/*.test.ts).
 * It mounts real filesystems, so files run one at a time; it skips only when
 * /dev/fuse is absent.
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
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
