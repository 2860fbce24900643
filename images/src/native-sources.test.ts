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
const compiled = /^RUN gcc ([\s\S]*?)$/m.exec(nativeStage.replaceAll("\\\n", " "))?.[1]?.split(/\s+/) ?? [];

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
});
