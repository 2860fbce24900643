/**
 * One package list for the image and for make dev's root filesystem: the Dockerfile installs
 * exactly images/computerd/packages.txt, build-rootfs.sh installs the same file, and where the
 * root filesystem is built every package of the list is installed in it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./context.ts";

const LIST = "images/computerd/packages.txt";
const read = (path: string) => readFileSync(`${REPO_ROOT}/${path}`, "utf8");

/** The package names of packages.txt (comments and blank lines dropped). */
function listedPackages(text = read(LIST)): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Packages dpkg's status file says are installed. */
function installed(status: string): Set<string> {
  const names = new Set<string>();
  for (const block of status.split("\n\n")) {
    const name = /^Package: (.+)$/m.exec(block)?.[1];
    if (name && /^Status: install ok installed$/m.test(block)) names.add(name);
  }
  return names;
}

describe("the image's package list", () => {
  it("has the toolbox and no duplicates", () => {
    const packages = listedPackages();
    expect(new Set(packages).size).toBe(packages.length);
    for (const name of [
      "git",
      "python3",
      "build-essential",
      "pandoc",
      "ghostscript",
      "jq",
      "ripgrep",
      "attr",
    ]) {
      expect(packages).toContain(name);
    }
  });

  it("is what the Dockerfile installs, and all it installs", () => {
    const dockerfile = read("images/computerd/Dockerfile");
    const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(final).toContain(`COPY ${LIST} /tmp/packages.txt`);
    const installs = [...final.matchAll(/apt-get install -y --no-install-recommends \\\n\s+(.+?) \\\n/g)].map(
      (match) => match[1],
    );
    expect(installs).toEqual(["$(grep -v -E '^\\s*(#|$)' /tmp/packages.txt)"]);
  });

  it("is what the local root filesystem installs", () => {
    const script = read("images/rootfs/build-rootfs.sh");
    expect(script).toContain(`PACKAGES=${LIST}`);
    expect(script).toMatch(/apt-get -q install -y --no-install-recommends \$\(packages\)/);
  });

  it.runIf(process.getuid?.() === 0)(
    "is installed in the root filesystem make dev runs (where it is built)",
    () => {
      const rootfs = execFileSync(`${REPO_ROOT}/images/rootfs/build-rootfs.sh`, ["--path"], {
        encoding: "utf8",
      }).trim();
      if (!existsSync(`${rootfs}/.computer-rootfs`)) {
        throw new Error(`${rootfs} is not built: run \`make rootfs\` (make test does) first`);
      }
      const have = installed(readFileSync(`${rootfs}/var/lib/dpkg/status`, "utf8"));
      expect(listedPackages().filter((name) => !have.has(name))).toEqual([]);
    },
  );
});
