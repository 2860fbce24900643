/** vitest project "images": unit tests of the image tooling (no docker needed). */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "images",
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
