/**
 * One Node and one npm for the image and make dev's root filesystem: both are root
 * devDependencies pinned to an exact version (node_modules/node, node_modules/npm), the
 * Dockerfile installs them from the build context and build-rootfs.sh from the same folders,
 * into the same places; where the root filesystem is built, its npm is that version. The
 * repository's own npm commands keep the developer's npm.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allowed, REPO_ROOT, TOOLCHAIN } from "./context.ts";

const read = (path: string) => readFileSync(`${REPO_ROOT}/${path}`, "utf8");
const version = (manifest: string) => (JSON.parse(read(manifest)) as { version: string }).version;
const pinned = (JSON.parse(read("package.json")) as { devDependencies: Record<string, string> })
  .devDependencies;
const NPM_HOME = "/usr/local/lib/node_modules/npm";

describe("the image's Node and npm", () => {
  it("are exact root devDependencies, installed at those versions", () => {
    expect(pinned.npm).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pinned.node).toMatch(/^\d+\.\d+\.\d+$/);
    expect(version("node_modules/npm/package.json")).toBe(pinned.npm);
    expect(version("node_modules/node/package.json")).toBe(pinned.node);
  });

  it("do not shadow the developer's npm: the root postinstall unlinks npm's bins", () => {
    // npm links every hoisted package's bins into node_modules/.bin, which `npm run` and npx put
    // first on PATH: the image's npm would then run every nested npm command of the repository.
    const manifest = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    expect(manifest.scripts.postinstall).toBe("rm -f node_modules/.bin/npm node_modules/.bin/npx");
    expect(existsSync(`${REPO_ROOT}/node_modules/.bin/npm`)).toBe(false);
    expect(existsSync(`${REPO_ROOT}/node_modules/.bin/npx`)).toBe(false);
  });

  it("enter the build context and the Dockerfile installs them into /usr/local", () => {
    for (const path of TOOLCHAIN) expect(allowed(), path).toContain(path);
    const dockerfile = read("images/computerd/Dockerfile");
    expect(dockerfile).toContain("mv node_modules/node/bin/node /usr/local/bin/node");
    expect(dockerfile).toContain(`mv node_modules/npm ${NPM_HOME}`);
    expect(dockerfile).toContain(`COPY --from=app ${NPM_HOME} ${NPM_HOME}`);
    expect(dockerfile).toContain("ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm");
    expect(dockerfile).toContain("ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx");
  });

  it("are what make dev's root filesystem installs, from the same folders (no second version)", () => {
    const script = read("images/rootfs/build-rootfs.sh");
    expect(script).toContain('install -m 0755 node_modules/node/bin/node "$work/usr/local/bin/node"');
    expect(script).toContain(`cp -a node_modules/npm "$work${NPM_HOME}"`);
    expect(script).toContain('ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/usr/local/bin/npm"');
    expect(script).toContain('ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/usr/local/bin/npx"');
    expect(script).not.toMatch(/npm pack|npm@\d|NPM_VERSION=/);
  });

  it.runIf(process.getuid?.() === 0)("are in the root filesystem make dev runs (where it is built)", () => {
    const rootfs = execFileSync(`${REPO_ROOT}/images/rootfs/build-rootfs.sh`, ["--path"], {
      encoding: "utf8",
    }).trim();
    if (!existsSync(`${rootfs}/.computer-rootfs`)) {
      throw new Error(`${rootfs} is not built: run \`make rootfs\` (make test does) first`);
    }
    const npm = JSON.parse(readFileSync(`${rootfs}${NPM_HOME}/package.json`, "utf8")) as { version: string };
    expect(npm.version).toBe(pinned.npm);
    expect(readlinkSync(`${rootfs}/usr/local/bin/npm`)).toBe("../lib/node_modules/npm/bin/npm-cli.js");
    expect(readlinkSync(`${rootfs}/usr/local/bin/npx`)).toBe("../lib/node_modules/npm/bin/npx-cli.js");
  });
});
