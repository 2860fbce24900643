/**
 * Helpers of the git tests: a fresh vfs in a fresh Durable Object's SQLite (the same storage a
 * computer uses), bound to the git API and CLI with `/workspace` as cwd and a fixed clock.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { createHash } from "node:crypto";
import { durableObjectSql, openVfs, type Vfs } from "@computer/vfs";
import { expect } from "vitest";
import { type ComputerGit, computerGit, type GitContext } from "../src/git/api.ts";
import { type CliResult, runGit } from "../src/git/cli.ts";
import { vfsGitFs } from "../src/git/vfs-git-fs.ts";
import { freshId } from "./helpers.ts";

/** A fixed author date so commit ids are reproducible. */
export const GIT_ENV = {
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_AUTHOR_DATE: "@1700000000 +0000",
  GIT_COMMITTER_DATE: "@1700000000 +0000",
};

/** What a git test gets: the vfs, the API, and `sh("git ...")`-like CLI runs. */
export interface GitFixture {
  vfs: Vfs;
  ctx: GitContext;
  git: ComputerGit;
  run(...argv: string[]): Promise<CliResult>;
  /** Runs the CLI and expects exit code 0; returns stdout. */
  ok(...argv: string[]): Promise<string>;
}

/** Runs `fn` inside a fresh DO with a vfs opened on its storage. */
export function withGit<T>(
  fn: (fixture: GitFixture) => Promise<T>,
  extra: Partial<GitContext> = {},
): Promise<T> {
  return runInDurableObject(env.COMPUTER.getByName(freshId("git")), async (_, state) => {
    const vfs = openVfs(durableObjectSql(state.storage), {
      sha256: (data) => createHash("sha256").update(data).digest("hex"),
    });
    const ctx: GitContext = { fs: vfsGitFs(vfs), cwd: "/workspace", env: GIT_ENV, ...extra };
    const run = (...argv: string[]) => runGit(argv, ctx);
    const ok = async (...argv: string[]) => {
      const result = await run(...argv);
      expect(result.exitCode, `git ${argv.join(" ")}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    return fn({ vfs, ctx, git: computerGit(ctx), run, ok });
  });
}
