/** The image's context filter matches computerd's real production dependencies and the Dockerfile. */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allowed, contextPackages, productionPackages, REPO_ROOT } from "./context.ts";

describe("the computerd image's build context", () => {
  it("lets in exactly computerd's production dependency closure", () => {
    expect(contextPackages()).toEqual(productionPackages());
  }, 30_000);

  it("copies nothing the context filter keeps out", () => {
    const dockerfile = readFileSync(`${REPO_ROOT}/images/computerd/Dockerfile`, "utf8");
    const allowedPaths = allowed();
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) =>
      (match[1] ?? "").split(" "),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      const path = source.replace(/\/$/, "");
      expect(
        allowedPaths.some((entry) => entry === path || entry.startsWith(`${path}/`)),
        `${source} is copied but filtered out`,
      ).toBe(true);
    }
  });

  it("copies every @computer/sdk module computerd's code loads (the built file Node resolves)", () => {
    const dockerfile = readFileSync(`${REPO_ROOT}/images/computerd/Dockerfile`, "utf8");
    const targets = (
      JSON.parse(readFileSync(`${REPO_ROOT}/sdk/package.json`, "utf8")) as {
        exports: Record<string, string | { default: string }>;
      }
    ).exports;
    // The image's Node sets no export condition: it loads each export's "default", in sdk/dist/.
    const exports = Object.fromEntries(
      Object.entries(targets).map(([subpath, target]) => [
        subpath,
        typeof target === "string" ? target : target.default,
      ]),
    );
    const sources = readdirSync(`${REPO_ROOT}/computerd/src`, { recursive: true, encoding: "utf8" })
      .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts"))
      .map((path) => readFileSync(`${REPO_ROOT}/computerd/src/${path}`, "utf8"));
    // `import type` is erased when Node strips the types: only value imports must be there.
    const loaded = new Set(
      sources.flatMap((text) =>
        [...text.matchAll(/^import (?!type )[^;]*from "@computer\/sdk(\/[a-z-]+)?";/gm)].map(
          (match) => exports[`.${match[1] ?? ""}`] ?? `unknown export ${match[1]}`,
        ),
      ),
    );
    expect(loaded.size).toBeGreaterThan(0);
    for (const file of loaded) expect(dockerfile, file).toContain(`sdk/${file.replace(/^\.\//, "")}`);
  });

  it("runs computerd serve on the port the Computer DO probes", () => {
    const dockerfile = readFileSync(`${REPO_ROOT}/images/computerd/Dockerfile`, "utf8");
    const launcher = readFileSync(`${REPO_ROOT}/worker/src/container/cloudflare-launcher.ts`, "utf8");
    const port = /export const COMPUTERD_PORT = (\d+);/.exec(launcher)?.[1];
    expect(port).toBeDefined();
    expect(dockerfile).toContain(`COMPUTERD_PORT=${port}`);
    expect(dockerfile).toContain(`EXPOSE ${port}`);
    expect(dockerfile).toMatch(
      /ENTRYPOINT \["node", "\/opt\/computer\/computerd\/bin\/computerd\.js"\]\nCMD \["serve"\]/,
    );
  });
});
