/**
 * Worker tests, run inside workerd by the Cloudflare Vitest plugin on worker/wrangler.jsonc:
 * the HTTP suites in test/ and the pure helpers' unit tests beside the code in src/. The guest
 * bundles (dist/guests) are built first: the plugin does not run wrangler's custom build.
 */
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { buildConsole } from "@computer/console/build";
import { sourceConditionPlugin } from "@computer/sdk/source-condition";
import { defineConfig } from "vitest/config";
import { buildGuests } from "./scripts/build-guests.ts";

await buildGuests();
buildConsole();

export default defineConfig({
  plugins: [
    sourceConditionPlugin(),
    cloudflareTest({
      wrangler: { configPath: "./wrangler.jsonc" },
      // The host launcher is off (a worker/.dev.vars written by `make dev` must not leak in).
      miniflare: {
        bindings: {
          COMPUTER_ADMIN_TOKEN: "test-admin-token",
          COMPUTERD_HOST_URL: "",
          COMPUTERD_HOST_TOKEN: "",
          // The size of space.test.ts's file: 32 MiB in make test, 1 GiB from bench:space.
          SPACE_TEST_MIB: process.env.SPACE_TEST_MIB ?? "32",
        },
      },
    }),
  ],
  test: {
    name: "worker",
    root: import.meta.dirname,
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Generous: CI has 2 cores and the fork/stream suites move real data through workerd.
    testTimeout: 30_000,
  },
});
