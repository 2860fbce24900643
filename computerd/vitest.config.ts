/**
 * vitest project "computerd": unit tests of the daemon (src/**\/*.test.ts), no
 * FUSE needed. The FUSE conformance suite is the "computerd-fuse" project
 * (vitest.fuse.config.ts).
 */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "computerd",
    root: import.meta.dirname,
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
