/**
 * Running one conformance script the way conformance.test.ts compares them: in a fresh
 * directory, as root or as an unprivileged caller, beside a fresh tree of other owners'
 * files ($OTHERS, from others-fixture.bash), with the compiled C helper in $POSIX_HELPER.
 */
import { execFile } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The folder of the scripts, the fixture and the C helper. */
export const SCRIPTS = fileURLToPath(new URL("./", import.meta.url));

/** Who runs a script: root, or uid/gid 4242 with the supplementary group 4343. */
export type Caller = "root" | "user";
export const CALLERS: readonly Caller[] = ["root", "user"];
export const USER = { uid: 4242, gid: 4242, groups: [4343] } as const;

/**
 * The test's PATH, then the system folders. Folders closed to the unprivileged caller (root's
 * own tool folders) are skipped by its shell, so it finds the system's tools there.
 */
const PATH = [process.env.PATH, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
  .filter(Boolean)
  .join(":");

/** What a script printed and how it exited. */
export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` (as root), resolving with its outcome instead of throwing. */
async function outcome(command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: "/",
      env: { LC_ALL: "C.UTF-8", TZ: "UTC", PATH, ...env },
      maxBuffer: 16 << 20,
      timeout: 300_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/**
 * Copies the scripts and the fixture into `dir` (mode 0755): the unprivileged caller must
 * read them, and a checkout (say under /root or a CI runner's home) may be closed to it.
 */
export function stageScripts(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(SCRIPTS)) {
    if (!name.endsWith(".sh") && !name.endsWith(".bash")) continue;
    copyFileSync(join(SCRIPTS, name), join(dir, name));
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

/**
 * Runs `script` (from `scripts`, see stageScripts) in `base`/`name` (created here, owned by
 * the caller) with a fresh `base`/`name`.others fixture. The environment is the same on
 * both sides.
 */
export async function runConformanceScript(
  scripts: string,
  script: string,
  base: string,
  name: string,
  caller: Caller,
  env: Record<string, string>,
): Promise<Outcome> {
  const dir = join(base, name);
  const others = `${dir}.others`;
  mkdirSync(dir);
  mkdirSync(others);
  chmodSync(dir, 0o755);
  chmodSync(others, 0o755);
  const fixture = await outcome("bash", [join(scripts, "others-fixture.bash"), others], {});
  if (fixture.code !== 0) throw new Error(`others-fixture.bash failed in ${others}:\n${fixture.stderr}`);
  const bash = ["bash", join(scripts, script), dir];
  const scriptEnv = { ...env, HOME: dir, OTHERS: others };
  if (caller === "root") return outcome(bash[0] ?? "bash", bash.slice(1), scriptEnv);
  chownSync(dir, USER.uid, USER.gid);
  return outcome(
    "setpriv",
    [`--reuid=${USER.uid}`, `--regid=${USER.gid}`, `--groups=${USER.groups.join(",")}`, "--", ...bash],
    scriptEnv,
  );
}

/** Compiles posix-helper.c into `dir` (readable and runnable by every caller); returns its path. */
export async function compilePosixHelper(dir: string): Promise<string> {
  const binary = join(dir, "posix-helper");
  await run("cc", ["-O1", "-Wall", "-Werror", "-o", binary, join(SCRIPTS, "posix-helper.c")]);
  chmodSync(binary, 0o755);
  return binary;
}

/** Packs a tiny package for npm.sh (an offline install needs a local tarball). */
export async function packTinyPackage(root: string): Promise<string> {
  const pkg = join(root, "tiny-pkg");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "tiny-conformance-pkg", version: "1.0.0", main: "index.js", license: "MIT" }),
  );
  writeFileSync(join(pkg, "index.js"), "exports.double = (n) => n * 2;\n");
  writeFileSync(join(pkg, "README.md"), "tiny\n");
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", root], {
    cwd: pkg,
    env: { ...process.env, npm_config_cache: join(root, "npm-cache") },
  });
  const tarball = join(root, stdout.trim().split("\n").pop() ?? "");
  chmodSync(tarball, 0o644);
  return tarball;
}
