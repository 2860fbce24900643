/**
 * `computer login` (checks the URL and token, then writes them to the 0600 config file) and
 * `computer token create|revoke` (scoped tokens of one computer; admin only).
 */
import type { Command } from "commander";
import { ComputerClient } from "../../client.ts";
import { configStore } from "../config.ts";
import { contextOf } from "../context.ts";
import { CliError, printJson } from "../output.ts";
import { parseSeconds } from "../parse.ts";

/** Adds login and the token commands to `program`. */
export function addAccessCommands(program: Command): void {
  program
    .command("login")
    .description("check URL and token, then store them (and a default computer) in the config file")
    .option("--token-stdin", "read the token from stdin")
    .action(async (opts: { tokenStdin?: boolean }, command: Command) => {
      const flags = command.optsWithGlobals<{
        url?: string;
        token?: string;
        computer?: string;
        json?: boolean;
      }>();
      const url = flags.url ?? process.env.COMPUTER_URL;
      let token = flags.token ?? process.env.COMPUTER_TOKEN;
      if (opts.tokenStdin) {
        const { text } = await import("node:stream/consumers");
        token = (await text(process.stdin)).trim();
      }
      if (!url || !token)
        throw new CliError("usage", "login: needs --url URL and --token TOKEN (or --token-stdin)");
      const client = new ComputerClient({ url, token });
      // Any valid token may read the API's own document: this checks URL and token at once.
      await client.openapi();
      if (flags.computer !== undefined) await client.computer(flags.computer).info();
      const store = await configStore();
      store.set({
        url: client.url,
        token,
        ...(flags.computer === undefined ? {} : { computer: flags.computer }),
      });
      if (flags.json) printJson({ url: client.url, computer: flags.computer ?? null, config: store.path });
      else process.stdout.write(`logged in to ${client.url} (config: ${store.path})\n`);
    });

  const token = program.command("token").description("tokens of one computer (admin)");
  token
    .command("create")
    .description("issue a token for the computer only; prints it")
    .option("--ro", "read-only (the default is rw)")
    .option("--rw", "read and write")
    .option("--ttl <duration>", "lifetime: 3600, 30m, 1h, 7d (default 1h)")
    .action(async (opts: { ro?: boolean; rw?: boolean; ttl?: string }, command: Command) => {
      if (opts.ro && opts.rw) throw new CliError("usage", "token create: --ro or --rw, not both");
      const ctx = await contextOf(command);
      const issued = await ctx.computer().tokens.create({
        scope: opts.ro ? "ro" : "rw",
        ...(opts.ttl === undefined ? {} : { ttlSeconds: parseSeconds(opts.ttl, "--ttl") }),
      });
      if (ctx.json) printJson(issued);
      else process.stdout.write(`${issued.token}\n`);
    });
  token
    .command("revoke")
    .description("revoke every token of the computer")
    .action(async (_opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      await computer.tokens.revoke();
      if (ctx.json) printJson({ computer: computer.id, revoked: true });
      else process.stdout.write(`revoked the tokens of ${computer.id}\n`);
    });
}
