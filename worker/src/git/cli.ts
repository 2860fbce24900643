/**
 * The shell's `git` command: argv in, `{ exitCode, stdout, stderr }` out, over the same
 * functions as the `computer:git` module. Supports the everyday subset: init, add, commit,
 * log, status, diff, clone, branch, checkout/switch, rev-parse, config. Failures print
 * `fatal: ...` and exit 128 like git; unknown usage exits 129.
 */
import { getConfig, setConfig } from "isomorphic-git";
import { cloneDirName, computerGit, type GitContext } from "./api.ts";
import { formatBranches, formatLog, subject } from "./cli-format.ts";
import { formatDiff } from "./diff.ts";
import { commit, log, tryResolve } from "./history.ts";
import { GitError, openRepo, resolvePath } from "./repo.ts";
import { add, matrix } from "./staging.ts";
import { formatLong, formatPorcelain } from "./status.ts";

/** What a command run returns. */
export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

class UsageError extends Error {}

/** Splits argv into flags (with their values, for `valued` flags) and positionals; `--` ends flags. */
function parse(args: string[], valued: string[]): { flags: Map<string, string[]>; rest: string[] } {
  const flags = new Map<string, string[]>();
  const rest: string[] = [];
  const put = (k: string, v: string) => flags.set(k, [...(flags.get(k) ?? []), v]);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      rest.push(...args.slice(i + 1));
      break;
    }
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) put(arg.slice(0, eq), arg.slice(eq + 1));
    else if (valued.includes(arg)) {
      const value = args[++i];
      if (value === undefined) throw new UsageError(`option '${arg}' requires a value`);
      put(arg, value);
    } else if (
      /^-[a-zA-Z]{2,}$/.test(arg) &&
      valued.includes(`-${arg.at(-1)}`) &&
      args[i + 1] !== undefined
    ) {
      // Bundled short flags ending in a valued one: `-am msg`.
      for (const c of arg.slice(1, -1)) put(`-${c}`, "");
      put(`-${arg.at(-1)}`, args[++i] ?? "");
    } else if (arg.startsWith("-") && arg !== "-") put(arg, "");
    else rest.push(arg);
  }
  return { flags, rest };
}

function has(flags: Map<string, string[]>, ...names: string[]): boolean {
  return names.some((n) => flags.has(n));
}

function value(flags: Map<string, string[]>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = flags.get(n);
    if (v !== undefined) return v.at(-1);
  }
  return undefined;
}

function count(flags: Map<string, string[]>, rest: string[]): number | undefined {
  const v = value(flags, "-n", "--max-count");
  const short = [...flags.keys()].find((k) => /^-\d+$/.test(k));
  const n = v ?? short?.slice(1) ?? (rest[0]?.match(/^-(\d+)$/) ? rest.shift()?.slice(1) : undefined);
  if (n === undefined) return undefined;
  if (!/^\d+$/.test(n)) throw new UsageError(`'${n}' is not a number`);
  return Number(n);
}

function parseAuthor(text: string): { name: string; email: string } {
  const match = /^(.*?)\s*<([^>]*)>\s*$/.exec(text);
  if (match === null) throw new UsageError(`--author '${text}' is not 'Name <email>'`);
  return { name: match[1] ?? "", email: match[2] ?? "" };
}

type Command = (args: string[], ctx: GitContext, out: string[], err: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  async init(args, ctx, out) {
    const { flags, rest } = parse(args, ["-b", "--initial-branch"]);
    const api = computerGit(ctx);
    const { dir } = await api.init({ dir: rest[0], defaultBranch: value(flags, "-b", "--initial-branch") });
    if (!has(flags, "-q", "--quiet")) out.push(`Initialized empty Git repository in ${dir}/.git/\n`);
    return 0;
  },
  async add(args, ctx) {
    const { flags, rest } = parse(args, []);
    const all = has(flags, "-A", "--all");
    if (!all && rest.length === 0) throw new UsageError("Nothing specified, nothing added.");
    await computerGit(ctx).add({ paths: rest, all });
    return 0;
  },
  async commit(args, ctx, out) {
    const { flags } = parse(args, ["-m", "--message", "--author"]);
    const messages = [...(flags.get("-m") ?? []), ...(flags.get("--message") ?? [])];
    if (messages.length === 0) throw new UsageError("no commit message: use -m <msg>");
    const repo = await openRepo(ctx.fs, ctx.cwd);
    if (has(flags, "-a", "--all")) {
      const tracked = (await matrix(repo)).filter(
        ([, h, w, s]) => (h === 1 || s !== 0) && !(w === 1 && s === 1),
      );
      if (tracked.length > 0)
        await add(
          repo,
          tracked.map(([file]) => file),
        );
    }
    const author = value(flags, "--author");
    const oid = await commit(repo, {
      message: messages.join("\n\n"),
      env: ctx.env ?? {},
      allowEmpty: has(flags, "--allow-empty"),
      ...(author === undefined ? {} : { author: parseAuthor(author) }),
    });
    const [entry] = await log(repo, { depth: 1 });
    const branch = (await computerGit(ctx).status()).branch ?? "detached HEAD";
    const root = entry !== undefined && entry.parents.length === 0 ? " (root-commit)" : "";
    if (!has(flags, "-q", "--quiet"))
      out.push(`[${branch}${root} ${oid.slice(0, 7)}] ${subject(entry?.message ?? "")}\n`);
    return 0;
  },
  async log(args, ctx, out) {
    const { flags, rest } = parse(args, ["-n", "--max-count"]);
    const depth = count(flags, rest);
    const entries = await computerGit(ctx).log({ ref: rest[0], depth });
    if (entries.length === 0) {
      const branch = (await computerGit(ctx).status()).branch ?? "HEAD";
      throw new GitError(`your current branch '${branch}' does not have any commits yet`);
    }
    out.push(formatLog(entries, has(flags, "--oneline")));
    return 0;
  },
  async status(args, ctx, out) {
    const { flags, rest } = parse(args, []);
    const result = await computerGit(ctx).status(rest.length > 0 ? { paths: rest } : {});
    const short = has(flags, "-s", "--short", "--porcelain");
    out.push(short ? formatPorcelain(result) : formatLong(result));
    return 0;
  },
  async diff(args, ctx, out) {
    const { flags, rest } = parse(args, ["-U", "--unified"]);
    const cached = has(flags, "--cached", "--staged");
    const againstHead = rest[0] === "HEAD";
    if (againstHead) rest.shift();
    const context = value(flags, "-U", "--unified");
    const { files } = await computerGit(ctx).diff({
      from: cached || againstHead ? "head" : "index",
      to: cached ? "index" : "worktree",
      ...(rest.length > 0 ? { paths: rest } : {}),
      ...(context === undefined ? {} : { context: Number(context) }),
    });
    if (has(flags, "--name-only")) out.push(files.map((f) => `${f.path}\n`).join(""));
    else if (!has(flags, "--quiet")) out.push(formatDiff(files));
    return has(flags, "--exit-code", "--quiet") && files.length > 0 ? 1 : 0;
  },
  async clone(args, ctx, _out, err) {
    const { flags, rest } = parse(args, ["--depth", "-b", "--branch"]);
    const [url, target] = rest;
    if (url === undefined) throw new UsageError("You must specify a repository to clone.");
    const dir = target ?? cloneDirName(url);
    const depth = value(flags, "--depth");
    if (!has(flags, "-q", "--quiet")) err.push(`Cloning into '${dir}'...\n`);
    await computerGit(ctx).clone({
      url,
      dir,
      singleBranch: has(flags, "--single-branch"),
      ...(depth === undefined ? {} : { depth: Number(depth) }),
      ...(value(flags, "-b", "--branch") === undefined ? {} : { ref: value(flags, "-b", "--branch") }),
    });
    return 0;
  },
  async branch(args, ctx, out) {
    const { flags, rest } = parse(args, ["-d", "-D", "--delete"]);
    const api = computerGit(ctx);
    if (has(flags, "--show-current")) {
      out.push(`${(await api.branch()).current ?? ""}\n`);
      return 0;
    }
    const doomed = value(flags, "-d", "-D", "--delete");
    if (doomed !== undefined) {
      await api.branch({ name: doomed, delete: true });
      out.push(`Deleted branch ${doomed}.\n`);
      return 0;
    }
    if (rest[0] !== undefined) {
      await api.branch({ name: rest[0], ...(rest[1] === undefined ? {} : { startPoint: rest[1] }) });
      return 0;
    }
    out.push(formatBranches(await api.branch()));
    return 0;
  },
  async checkout(args, ctx, _out, err) {
    const { flags, rest } = parse(args, ["-b", "-c"]);
    const created = value(flags, "-b", "-c");
    const ref = created ?? rest[0];
    if (ref === undefined) throw new UsageError("you must specify a branch to switch to");
    await computerGit(ctx).checkout({
      ref,
      create: created !== undefined,
      force: has(flags, "-f", "--force"),
    });
    err.push(created === undefined ? `Switched to branch '${ref}'\n` : `Switched to a new branch '${ref}'\n`);
    return 0;
  },
  async "rev-parse"(args, ctx, out) {
    const { flags, rest } = parse(args, []);
    const repo = await openRepo(ctx.fs, ctx.cwd);
    if (has(flags, "--show-toplevel")) out.push(`${repo.dir}\n`);
    for (const ref of rest) {
      if (has(flags, "--abbrev-ref") && ref === "HEAD") {
        out.push(`${(await computerGit(ctx).status()).branch ?? "HEAD"}\n`);
        continue;
      }
      const oid = await tryResolve(repo, ref);
      if (oid === undefined) throw new GitError(`ambiguous argument '${ref}': unknown revision`);
      out.push(`${has(flags, "--short") ? oid.slice(0, 7) : oid}\n`);
    }
    return 0;
  },
  async config(args, ctx, out) {
    const { flags, rest } = parse(args, []);
    const repo = await openRepo(ctx.fs, ctx.cwd);
    const [path, newValue] = rest;
    if (path === undefined) throw new UsageError("usage: git config <name> [<value>]");
    const target = { fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, path };
    if (newValue !== undefined && !has(flags, "--get")) {
      await setConfig({ ...target, value: newValue });
      return 0;
    }
    const current: unknown = await getConfig(target);
    if (current === undefined) return 1;
    out.push(`${String(current)}\n`);
    return 0;
  },
};
COMMANDS.switch = COMMANDS.checkout as Command;

const USAGE = `usage: git [-C <path>] <command> [<args>]\ncommands: ${Object.keys(COMMANDS).sort().join(", ")}\n`;

/** Runs `git argv...` in `ctx`. Never throws for a user error: it is an exit code and stderr. */
export async function runGit(argv: string[], ctx: GitContext): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  let args = argv;
  let cwd = ctx.cwd;
  while (args[0] === "-C" && args[1] !== undefined) {
    cwd = resolvePath(cwd, args[1]);
    args = args.slice(2);
  }
  const [name, ...rest] = args;
  if (name === "--version" || name === "version")
    return { exitCode: 0, stdout: "git version 2.0.0 (isomorphic-git)\n", stderr: "" };
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    const unknown = name === undefined ? "" : `git: '${name}' is not a git command.\n`;
    return { exitCode: name === undefined ? 1 : 129, stdout: "", stderr: unknown + USAGE };
  }
  try {
    const exitCode = await command(rest, { ...ctx, cwd }, out, err);
    return { exitCode, stdout: out.join(""), stderr: err.join("") };
  } catch (e) {
    if (e instanceof UsageError)
      return { exitCode: 129, stdout: out.join(""), stderr: `${err.join("")}error: ${e.message}\n` };
    if (e instanceof GitError)
      return { exitCode: 128, stdout: out.join(""), stderr: `${err.join("")}fatal: ${e.message}\n` };
    const message = e instanceof Error ? e.message : String(e);
    return { exitCode: 128, stdout: out.join(""), stderr: `${err.join("")}fatal: ${message}\n` };
  }
}
