/**
 * vitest project "examples-e2e": each example run as its README says, against a real local
 * fleet (@computer/fleet) started by the test file. Files run one at a time.
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "examples-e2e",
    environment: "node",
    include: ["*/*.e2e.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
