/**
 * vitest project "infra": the ComputerFleet component under Pulumi mocks, its validators and
 * generated wrangler config (incl. a real `wrangler deploy --dry-run`), and the example stack.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "infra",
    environment: "node",
    include: ["src/**/*.test.ts", "example/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
