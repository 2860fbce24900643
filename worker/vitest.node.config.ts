/** vitest project "worker-node": tests of the Worker's build scripts (scripts/), run in Node, not workerd. */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "worker-node",
    root: import.meta.dirname,
    environment: "node",
    include: ["scripts/**/*.test.ts"],
  },
});
