/**
 * `computer checkpoint create|list|restore`, `fork` and `publish`: the computer's history and
 * what leaves it (a fork; an artifact's public link).
 */
import type { Command } from "commander";
import { contextOf } from "../context.ts";
import { printJson, printTable } from "../output.ts";
import { parseSeconds } from "../parse.ts";

/** Adds the checkpoint, fork and publish commands to `program`. */
export function addHistoryCommands(program: Command): void {
  const checkpoint = program.command("checkpoint").description("named checkpoints of the computer's tree");
  checkpoint
    .command("create")
    .description("record the current tree as NAME")
    .argument("<name>")
    .action(async (name: string, _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const created = await ctx.computer().checkpoints.create(name);
      if (ctx.json) printJson(created);
      else process.stdout.write(`checkpoint ${created.name} at rev ${created.rev}\n`);
    });
  checkpoint
    .command("list")
    .description("list checkpoints")
    .action(async (_opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const checkpoints = await ctx.computer().checkpoints.list();
      if (ctx.json) return printJson({ checkpoints });
      printTable(
        ["NAME", "REV", "CREATED"],
        checkpoints.map((c) => [c.name, String(c.rev), c.createdAt]),
      );
    });
  checkpoint
    .command("restore")
    .description("make the whole tree NAME's again")
    .argument("<name>")
    .action(async (name: string, _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const restored = await ctx.computer().checkpoints.restore(name);
      if (ctx.json) printJson(restored);
      else process.stdout.write(`restored ${restored.name} (rev ${restored.rev})\n`);
    });

  program
    .command("fork")
    .description("a new computer TO with this computer's tree (admin)")
    .argument("<to>", "the new computer's id")
    .option("--checkpoint <name>", "fork the tree of this checkpoint instead of now")
    .action(async (to: string, opts: { checkpoint?: string }, command: Command) => {
      const ctx = await contextOf(command);
      const forked = await ctx
        .computer()
        .fork(to, opts.checkpoint === undefined ? {} : { checkpoint: opts.checkpoint });
      const info = await forked.info();
      if (ctx.json) printJson(info);
      else process.stdout.write(`forked ${info.id}\n`);
    });

  program
    .command("publish")
    .description("publish a file or folder; prints its public link")
    .argument("<path>", "workspace file or folder")
    .option("--name <name>", "artifact name (default: the path's last segment)")
    .option("--version <version>", "version (default: the next integer)")
    .option("--ttl <duration>", "link lifetime: 3600, 1h, 7d (default 7 days)")
    .action(
      async (path: string, opts: { name?: string; version?: string; ttl?: string }, command: Command) => {
        const ctx = await contextOf(command);
        const published = await ctx.computer().publish({
          path,
          ...(opts.name === undefined ? {} : { name: opts.name }),
          ...(opts.version === undefined ? {} : { version: opts.version }),
          ...(opts.ttl === undefined ? {} : { ttlSeconds: parseSeconds(opts.ttl, "--ttl") }),
        });
        if (ctx.json) printJson(published);
        else process.stdout.write(`${published.url}\n`);
      },
    );
}
