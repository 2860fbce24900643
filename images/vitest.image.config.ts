/**
 * vitest project "image": the computerd image under a docker engine, connected to the local
 * Worker (`make test-image` builds the image first). Files run one at a time.
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "image",
    environment: "node",
    include: ["test/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
