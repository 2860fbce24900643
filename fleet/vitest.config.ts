/** vitest project "fleet": unit tests of the fleet harness (capabilities and the skip rule, the bundle's modules, the live reload's watch). */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "fleet",
    root: import.meta.dirname,
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
