/**
 * Builds the published shape of @computer/sdk: src/ compiled to dist/ (JavaScript and .d.ts,
 * tsconfig.build.json), the `computer` bin made executable. Skips the build when dist/ is newer
 * than every source file, so `make deps` and the e2e setup can call it every time; `--force`
 * always builds. Inside the repo tools read src/ through the "computer-source" export condition;
 * dist/ is what Node runs (the `computer` bin, scripts) and what `npm pack` ships.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The sdk folder. */
export const SDK_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Written last by a build: its mtime is the build's. */
const STAMP = join(SDK_ROOT, "dist", ".built");
/** What the build reads besides src/. */
const INPUTS = ["tsconfig.build.json", "package.json", "../tsconfig.json"];
/** The `computer` bin, which npm links and the shell runs directly. */
const BIN = join(SDK_ROOT, "dist", "cli", "main.js");

/** Newest mtime under `path` (a file or a folder, recursively), in ms. */
function newest(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

/** True when dist/ was built after the last change to its inputs. */
export function isBuilt(): boolean {
  if (!existsSync(STAMP) || !existsSync(BIN)) return false;
  const inputs = [join(SDK_ROOT, "src"), ...INPUTS.map((path) => join(SDK_ROOT, path))];
  return Math.max(...inputs.map(newest)) < statSync(STAMP).mtimeMs;
}

/** Builds dist/ from scratch (removed files leave nothing behind) unless it is current. */
export function buildSdk(options: { force?: boolean } = {}): "built" | "current" {
  if (!options.force && isBuilt()) return "current";
  rmSync(join(SDK_ROOT, "dist"), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(SDK_ROOT, "tsconfig.build.json")], { stdio: "inherit" });
  chmodSync(BIN, 0o755);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return "built";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = buildSdk({ force: process.argv.includes("--force") });
  if (result === "built") console.log("@computer/sdk: built dist/");
}
