/**
 * vitest project "e2e": tests against the real local fleet (the Worker's deploy bundle under Miniflare)
 * and the deploy bundle. Each file starts what it needs; files run one at a time.
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "e2e",
    environment: "node",
    include: ["**/*.test.ts"],
    globalSetup: ["./build-sdk.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
