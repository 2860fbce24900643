/**
 * `computer preview PORT` (open a URL reaching that port inside the container; prints it),
 * `computer preview --list` and `computer preview PORT --close`.
 */
import type { Command } from "commander";
import type { PreviewInfo } from "../../previews.ts";
import { contextOf } from "../context.ts";
import { CliError, printJson, printTable } from "../output.ts";
import { parseSeconds } from "../parse.ts";

interface PreviewOptions {
  list?: boolean;
  close?: boolean;
  private?: boolean;
  ttl?: string;
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : 0;
  if (port < 1 || port > 65535) throw new CliError("usage", `preview: PORT must be 1..65535, got '${value}'`);
  return port;
}

/** Adds the preview command to `program`. */
export function addPreviewCommands(program: Command): void {
  program
    .command("preview")
    .description("a URL reaching PORT inside the container (HTTP and WebSocket); prints it")
    .argument("[port]", "the port a server in the computer listens on (start it with exec --detach)")
    .option("--ttl <duration>", "lifetime of the URL: 3600, 30m, 1h, 7d (default 1d)")
    .option("--private", "the URL needs a token of the computer (default: signed, public)")
    .option("--close", "close the preview of PORT: its URLs stop working")
    .option("--list", "list the open previews")
    .action(async (rawPort: string | undefined, opts: PreviewOptions, command: Command) => {
      const ctx = await contextOf(command);
      const previews = ctx.computer().previews;
      if (opts.list) {
        if (rawPort !== undefined || opts.close) throw new CliError("usage", "preview --list takes no PORT");
        const open = await previews.list();
        if (ctx.json) return printJson({ previews: open });
        return printTable(
          ["PORT", "ACCESS", "EXPIRES", "URL"],
          open.map((p: PreviewInfo) => [String(p.port), p.access, p.expiresAt, p.url]),
        );
      }
      if (rawPort === undefined) throw new CliError("usage", "preview: needs a PORT (or --list)");
      const port = parsePort(rawPort);
      if (opts.close) {
        await previews.close(port);
        if (ctx.json) printJson({ port, closed: true });
        else process.stdout.write(`closed the preview of port ${port}\n`);
        return;
      }
      const opened = await previews.open({
        port,
        ...(opts.private ? { access: "token" as const } : {}),
        ...(opts.ttl === undefined ? {} : { ttlSeconds: parseSeconds(opts.ttl, "--ttl") }),
      });
      if (ctx.json) printJson(opened);
      else process.stdout.write(`${opened.url}\n`);
    });
}
