/**
 * `computer create|list|info|delete|use`: the computers of the API. `create` and `delete` need
 * the admin token; `use` sets the default computer in the config file.
 */
import type { Command } from "commander";
import { COMPUTER_ID } from "../../contract/computer-id.ts";
import type { ComputerInfo } from "../../contract/types.ts";
import { configStore } from "../config.ts";
import { contextOf } from "../context.ts";
import { formatBytes, printJson, printTable } from "../output.ts";
import { parseBytes, parseEgress } from "../parse.ts";

function egressText(info: ComputerInfo): string {
  return typeof info.egress === "string" ? info.egress : `allow ${info.egress.allow.join(",")}`;
}

function printInfo(info: ComputerInfo): void {
  printTable(
    [],
    [
      ["id", info.id],
      ["created", info.createdAt],
      [
        "used",
        `${formatBytes(info.usedBytes)} of ${info.quotaBytes === null ? "no quota" : formatBytes(info.quotaBytes)}`,
      ],
      ["egress", egressText(info)],
    ],
  );
}

/** Adds the computer commands to `program`. */
export function addComputerCommands(program: Command): void {
  program
    .command("create")
    .description("create a computer (or update its quota/egress if it exists)")
    .argument("<id>", `computer id: ${COMPUTER_ID.source.slice(1, -1)}`)
    .option("--quota <size>", "quota: bytes, or 512M, 1G, ...")
    .option("--egress <policy>", "outbound network: none, all, or host,host,...")
    .action(async (id: string, opts: { quota?: string; egress?: string }, command: Command) => {
      const ctx = await contextOf(command);
      const settings = {
        ...(opts.quota === undefined ? {} : { quotaBytes: parseBytes(opts.quota, "--quota") }),
        ...(opts.egress === undefined ? {} : { egress: parseEgress(opts.egress) }),
      };
      const info = await ctx.client.computers.create(id, settings);
      if (ctx.json) printJson(info);
      else process.stdout.write(`${info.created ? "created" : "updated"} ${info.id}\n`);
    });

  program
    .command("list")
    .description("list computers (admin)")
    .action(async (_opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const computers: ComputerInfo[] = [];
      for await (const info of ctx.client.computers.all()) computers.push(info);
      if (ctx.json) return printJson({ computers });
      printTable(
        ["ID", "USED", "QUOTA", "EGRESS", "CREATED"],
        computers.map((c) => [
          c.id,
          formatBytes(c.usedBytes),
          c.quotaBytes === null ? "-" : formatBytes(c.quotaBytes),
          egressText(c),
          c.createdAt,
        ]),
      );
    });

  program
    .command("info")
    .description("show a computer (default: --computer)")
    .argument("[id]", "computer id")
    .action(async (id: string | undefined, _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const info = await (id === undefined ? ctx.computer() : ctx.client.computer(id)).info();
      if (ctx.json) printJson(info);
      else printInfo(info);
    });

  program
    .command("delete")
    .description("delete a computer and all its data (admin)")
    .argument("<id>", "computer id")
    .action(async (id: string, _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      await ctx.client.computers.delete(id);
      if (ctx.json) printJson({ id, deleted: true });
      else process.stdout.write(`deleted ${id}\n`);
    });

  program
    .command("use")
    .description("make ID the default computer (written to the config file)")
    .argument("<id>", "computer id")
    .action(async (id: string, _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      await ctx.client.computer(id).info();
      (await configStore()).set("computer", id);
      if (ctx.json) printJson({ computer: id });
      else process.stdout.write(`using ${id}\n`);
    });
}
