/** vitest project "images": unit tests of the image tooling (no docker needed). */

import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [sourceConditionPlugin()],
  test: {
    name: "images",
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
