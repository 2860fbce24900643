/**
 * The image's build context: /.dockerignore lets in only what images/computerd/Dockerfile copies,
 * including computerd's production dependencies by name. These helpers read that allowlist and
 * ask npm for the real dependency closure, so a test can keep the two equal.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { relative } from "node:path";

/** The repository root. */
export const REPO_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The `node_modules/<package>` folders /.dockerignore lets into the context (the Node binary aside). */
export function contextPackages(dockerignore = `${REPO_ROOT}/.dockerignore`): string[] {
  return readFileSync(dockerignore, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("!node_modules/") && line !== "!node_modules/node/bin/node")
    .map((line) => line.slice(1))
    .sort();
}

/**
 * The installed folders of computerd's production dependency closure (`npm ls --omit=dev --all
 * --parseable -w computerd`), without the workspaces themselves (the image links those).
 */
export function productionPackages(): string[] {
  const out = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable", "-w", "computerd"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  return out
    .split("\n")
    .filter((line) => line.startsWith(`${REPO_ROOT}/node_modules/`))
    .map((line) => relative(REPO_ROOT, line))
    .filter((path) => path !== "node_modules/computerd" && !path.startsWith("node_modules/@computer/"))
    .sort();
}
