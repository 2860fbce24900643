/**
 * The file commands: `ls`, `cat`, `put` (a file, a folder with -r, or stdin), `get` (-r, or
 * `-` for stdout), `rm`, `mv`, `mkdir`, `stat`, `chmod`. Transfers stream both ways and are
 * binary-safe; a progress bar shows on a terminal for large ones.
 */
import { stat as localStat } from "node:fs/promises";
import { basename, join, posix } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import type { EntryJson } from "../../contract/types.ts";
import { isComputerError } from "../../error.ts";
import { downloadFile, downloadTree, uploadFile, uploadStream, uploadTree } from "../../node/transfer.ts";
import { contextOf } from "../context.ts";
import { answer, CliError, formatBytes, printJson, printTable } from "../output.ts";
import { parseMode } from "../parse.ts";
import { progressBar } from "../progress.ts";

/** `dir/` + a name: a destination ending in a slash means "into this folder". */
function into(destination: string, name: string, join: (a: string, b: string) => string): string {
  return destination.endsWith("/") ? join(destination, name) : destination;
}

async function isLocalDir(path: string): Promise<boolean> {
  try {
    return (await localStat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Streams `body` to stdout, binary-safe, with backpressure. */
async function toStdout(body: ReadableStream<Uint8Array>): Promise<void> {
  await pipeline(
    Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>),
    process.stdout,
    {
      end: false,
    },
  );
}

function entryLine(e: EntryJson): string[] {
  return [e.mode, e.type, String(e.size), e.mtime, e.type === "dir" ? `${e.name}/` : e.name];
}

/** Adds the file commands to `program`. */
export function addFileCommands(program: Command): void {
  program
    .command("ls")
    .description("list a directory of the computer")
    .argument("[path]", "directory (default: the workspace root)", "")
    .option("-l, --long", "mode, type, size, mtime and name")
    .action(async (path: string, opts: { long?: boolean }, command: Command) => {
      const ctx = await contextOf(command);
      const entries: EntryJson[] = [];
      for await (const entry of ctx.computer().files.entries(path)) entries.push(entry);
      if (ctx.json) return printJson({ path: `/${path.replace(/^\/+/, "")}`, entries });
      if (opts.long) return printTable([], entries.map(entryLine));
      for (const e of entries) process.stdout.write(`${e.type === "dir" ? `${e.name}/` : e.name}\n`);
    });

  program
    .command("cat")
    .description("write files of the computer to stdout (binary-safe)")
    .argument("<path...>", "files")
    .action(async (paths: string[], _opts: object, command: Command) => {
      const computer = (await contextOf(command)).computer();
      for (const path of paths) await toStdout(await computer.files.stream(path));
    });

  program
    .command("put")
    .description("upload a local file (`-`: stdin) or, with -r, a folder")
    .argument("<local>", "local file, folder (-r) or - for stdin")
    .argument("<remote>", "path on the computer (ending in / puts it into that folder)")
    .option("-r, --recursive", "upload a folder")
    .action(async (local: string, remote: string, opts: { recursive?: boolean }, command: Command) => {
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      if (local === "-") {
        const body = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
        const written = await uploadStream(computer, body, into(remote, "stdin", posix.join));
        if (ctx.json) printJson(written);
        return;
      }
      if (await isLocalDir(local)) {
        if (!opts.recursive) throw new CliError("usage", `put: ${local} is a directory (use -r)`);
        const to = into(remote, basename(local), posix.join);
        const files = await uploadTree(computer, local, to);
        return answer(ctx.json, { path: to, files }, `uploaded ${files} files to ${to}`);
      }
      await localStat(local).catch(() => {
        throw new CliError("local", `put: ${local}: no such file`);
      });
      const bar = await progressBar(`put ${basename(local)}`);
      try {
        const written = await uploadFile(computer, local, into(remote, basename(local), posix.join), bar);
        if (ctx.json) printJson(written);
      } finally {
        bar.done();
      }
    });

  program
    .command("get")
    .description("download a file (to stdout with `-`) or, with -r, a folder")
    .argument("<remote>", "path on the computer")
    .argument("[local]", "local path (default: the remote name here; - for stdout)")
    .option("-r, --recursive", "download a folder")
    .action(
      async (remote: string, local: string | undefined, opts: { recursive?: boolean }, command: Command) => {
        const ctx = await contextOf(command);
        const computer = ctx.computer();
        const name = posix.basename(remote.replace(/\/+$/, "")) || "workspace";
        if (local === "-") return toStdout(await computer.files.stream(remote));
        let to = local ?? name;
        if (local !== undefined && (local.endsWith("/") || (await isLocalDir(local)))) to = join(local, name);
        if (opts.recursive) {
          const files = await downloadTree(computer, remote, to);
          return answer(ctx.json, { path: to, files }, `downloaded ${files} files to ${to}`);
        }
        const bar = await progressBar(`get ${name}`);
        try {
          const size = await downloadFile(computer, remote, to, bar);
          if (ctx.json) printJson({ path: to, size });
        } catch (err) {
          if (isComputerError(err) && err.code === "EISDIR")
            throw new CliError("usage", `get: ${remote} is a directory (use -r)`);
          throw err;
        } finally {
          bar.done();
        }
      },
    );

  program
    .command("rm")
    .description("remove files or empty directories (-r: trees)")
    .argument("<path...>", "paths")
    .option("-r, --recursive", "remove directories and their contents")
    .action(async (paths: string[], opts: { recursive?: boolean }, command: Command) => {
      const ctx = await contextOf(command);
      for (const path of paths)
        await ctx.computer().files.remove(path, { recursive: opts.recursive === true });
      if (ctx.json) printJson({ removed: paths });
    });

  program
    .command("mv")
    .description("rename FROM to TO (replacing it); --exchange swaps the two")
    .argument("<from>")
    .argument("<to>")
    .option("--exchange", "swap FROM and TO atomically (both must exist)")
    .action(async (from: string, to: string, opts: { exchange?: boolean }, command: Command) => {
      const ctx = await contextOf(command);
      const result = await ctx.computer().files.rename(from, to, { exchange: opts.exchange === true });
      if (ctx.json) printJson(result);
    });

  program
    .command("mkdir")
    .description("create directories")
    .argument("<path...>")
    .option("-p, --parents", "create parents too; an existing directory is fine")
    .action(async (paths: string[], opts: { parents?: boolean }, command: Command) => {
      const ctx = await contextOf(command);
      const made = [];
      for (const path of paths)
        made.push(await ctx.computer().files.mkdir(path, { recursive: opts.parents === true }));
      if (ctx.json) printJson({ created: made });
    });

  program
    .command("stat")
    .description("every attribute of a path (-L: follow a final symlink)")
    .argument("<path>")
    .option("-L, --dereference", "stat what a symlink points to")
    .action(async (path: string, opts: { dereference?: boolean }, command: Command) => {
      const ctx = await contextOf(command);
      const stat = await ctx.computer().files.stat(path, { follow: opts.dereference === true });
      if (ctx.json) return printJson(stat);
      const { timespec: _, ...flat } = stat;
      printTable(
        [],
        Object.entries(flat).map(([key, value]) => [
          key,
          key === "size" ? `${value} (${formatBytes(Number(value))})` : String(value),
        ]),
      );
    });

  program
    .command("chmod")
    .description("set permission bits (octal)")
    .argument("<mode>", "octal mode, e.g. 755")
    .argument("<path...>")
    .action(async (mode: string, paths: string[], _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const bits = parseMode(mode);
      const results = [];
      for (const path of paths) results.push(await ctx.computer().files.chmod(path, bits));
      if (ctx.json) printJson({ changed: results });
    });
}
