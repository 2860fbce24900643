/**
 * vitest project "sdk-workerd": the SAME pure SDK tests as vitest.config.ts, inside workerd
 * (the Cloudflare Vitest pool), so the core is shown to need nothing but web APIs.
 */
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { sdkTestFiles } from "./vitest.config.ts";

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./test/workerd/wrangler.jsonc" } })],
  test: {
    name: "sdk-workerd",
    root: import.meta.dirname,
    include: sdkTestFiles,
    exclude: ["**/node_modules/**", "src/node/**", "src/cli/**"],
  },
});
