/**
 * vitest project "vfs-workerd": the SAME vfs test files as vitest.config.ts, run inside
 * workerd, where test/sql-backend.ts is swapped for test/sql-backend.workerd.ts so every
 * test body runs in a fresh SQLite-backed Durable Object.
 */
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig, type Plugin } from "vitest/config";
import { vfsTestFiles, vfsTestTimeoutMs } from "./vitest.config.ts";

const nodeBackend = fileURLToPath(new URL("./test/sql-backend.ts", import.meta.url));
const workerdBackend = fileURLToPath(new URL("./test/sql-backend.workerd.ts", import.meta.url));

/** Redirects every import that resolves to the node SQL backend to the workerd one, whatever its relative spelling. */
function workerdSqlBackend(): Plugin {
  return {
    name: "vfs-workerd-sql-backend",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!source.endsWith("sql-backend.ts")) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === nodeBackend ? workerdBackend : resolved;
    },
  };
}

export default defineConfig({
  plugins: [
    workerdSqlBackend(),
    cloudflareTest({ wrangler: { configPath: "./test/workerd/wrangler.jsonc" } }),
  ],
  test: {
    name: "vfs-workerd",
    include: vfsTestFiles,
    testTimeout: vfsTestTimeoutMs,
    exclude: ["**/node_modules/**", "**/*.node.test.ts"],
  },
});
