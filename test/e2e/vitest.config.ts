/**
 * vitest project "e2e": tests against the real local fleet (wrangler dev of the Worker)
 * and the deploy bundle. Each file starts what it needs; files run one at a time.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "e2e",
    environment: "node",
    include: ["**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
