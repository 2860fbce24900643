/**
 * The image compiles computerd's fuse3 addon from the same sources as node-gyp: every source of
 * computerd/native/binding.gyp, and every header they include, enters the build context
 * (/.dockerignore), is copied by the Dockerfile's native stage, and each source is on its gcc line.
 * A source added to binding.gyp alone builds on the host and fails only `make image`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allowed, REPO_ROOT } from "./context.ts";

const NATIVE = "computerd/native";
const read = (path: string) => readFileSync(`${REPO_ROOT}/${path}`, "utf8");

const gyp = JSON.parse(read(`${NATIVE}/binding.gyp`)) as {
  targets: { target_name: string; sources: string[] }[];
};
const sources = gyp.targets.find((target) => target.target_name === "fuse3")?.sources ?? [];

/** The headers of this folder that `source` includes ("…"), and theirs, by name. */
function localHeaders(source: string, seen = new Set<string>()): Set<string> {
  for (const [, header] of read(`${NATIVE}/${source}`).matchAll(/^#include "([^"/]+\.h)"/gm)) {
    if (header === undefined || seen.has(header)) continue;
    seen.add(header);
    localHeaders(header, seen);
  }
  return seen;
}

const headers = [...new Set(sources.flatMap((source) => [...localHeaders(source)]))];
const dockerfile = read("images/computerd/Dockerfile");
const nativeStage = dockerfile.slice(
  dockerfile.indexOf("AS native"),
  dockerfile.indexOf("FROM", dockerfile.indexOf("AS native")),
);
const copied =
  /^COPY ([\s\S]*?) \/build\/$/m.exec(nativeStage.replaceAll("\\\n", " "))?.[1]?.split(/\s+/) ?? [];
/** The words of the native stage's `RUN gcc` line that makes /build/`output`. */
function gccLine(output: string): string[] {
  const lines = nativeStage.replaceAll("\\\n", " ").match(/^RUN gcc .*$/gm) ?? [];
  return lines.find((line) => line.includes(` -o /build/${output}`))?.split(/\s+/) ?? [];
}
const compiled = gccLine("fuse3.node");

/** computerd-spawner's sources (computerd/native/build.sh), which the image builds too. */
const spawnerSources = ["spawner.c", "spawner-warm.c", "enter.c", "warm-entry.c"];
const spawnerHeaders = [...new Set(spawnerSources.flatMap((source) => [...localHeaders(source)]))];

describe("the image's fuse3 addon", () => {
  it("has sources and headers to check", () => {
    expect(sources).toContain("fuse3.c");
    expect(headers).toContain("write-run.h");
  });

  it("lets every source and header into the build context", () => {
    const context = allowed();
    for (const file of [...sources, ...headers]) expect(context, file).toContain(`${NATIVE}/${file}`);
  });

  it("copies every source and header into the native stage and compiles every source", () => {
    for (const file of [...sources, ...headers]) expect(copied, file).toContain(`${NATIVE}/${file}`);
    for (const source of sources) expect(compiled, source).toContain(`/build/${source}`);
    expect(compiled.filter((word) => word.startsWith("/build/") && word.endsWith(".c")).sort()).toEqual(
      sources.map((source) => `/build/${source}`).sort(),
    );
  });

  it("builds computerd-spawner from the sources build.sh does, in the context and the native stage", () => {
    const buildScript = read(`${NATIVE}/build.sh`);
    const line = buildScript.split("\n").find((l) => l.includes("-o build/Release/computerd-spawner")) ?? "";
    expect(
      line
        .split(/\s+/)
        .filter((word) => word.endsWith(".c"))
        .sort(),
    ).toEqual([...spawnerSources].sort());
    const context = allowed();
    for (const file of [...spawnerSources, ...spawnerHeaders]) {
      expect(context, file).toContain(`${NATIVE}/${file}`);
      expect(copied, file).toContain(`${NATIVE}/${file}`);
    }
    const spawner = gccLine("computerd-spawner");
    expect(spawner.filter((word) => word.endsWith(".c")).sort()).toEqual(
      spawnerSources.map((source) => `/build/${source}`).sort(),
    );
    expect(dockerfile).toContain("COPY --from=native /build/computerd-spawner");
  });
});
