/**
 * Root vitest config: one project per test environment. `npm run test:unit`,
 * `test:workerd` and `test:e2e` pick projects by name (see package.json).
 */
import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

/** Every project config. A listed one that is missing fails the run: a project never drops out silently. */
const projectConfigs = [
  "vfs/vitest.config.ts",
  "vfs/vitest.workerd.config.ts",
  "worker/vitest.config.ts",
  "worker/vitest.node.config.ts",
  "sdk/vitest.config.ts",
  "sdk/vitest.workerd.config.ts",
  "test/e2e/vitest.config.ts",
  "computerd/vitest.config.ts",
  "computerd/vitest.fuse.config.ts",
  "infra/vitest.config.ts",
  "images/vitest.config.ts",
  "images/vitest.image.config.ts",
  "examples/vitest.config.ts",
  "examples/vitest.e2e.config.ts",
  "bench/vitest.config.ts",
  "fleet/vitest.config.ts",
];

const missing = projectConfigs.filter((path) => !existsSync(new URL(path, import.meta.url)));
if (missing.length > 0) throw new Error(`vitest.config.ts: project config(s) missing: ${missing.join(", ")}`);

export default defineConfig({
  test: {
    projects: [
      ...projectConfigs,
      {
        test: {
          name: "scripts",
          root: "scripts",
          environment: "node",
          include: ["**/*.test.ts"],
        },
      },
    ],
  },
});
