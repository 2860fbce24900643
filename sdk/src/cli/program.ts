/**
 * The `computer` command tree (commander): global options, every command, help and completion.
 * `--computer`, `--url`, `--token` and `--json` work before or after the command.
 */
import { Command } from "commander";
import { addAccessCommands } from "./commands/access.ts";
import { addComputerCommands } from "./commands/computers.ts";
import { addExecCommands } from "./commands/exec.ts";
import { addFileCommands } from "./commands/files.ts";
import { addHistoryCommands } from "./commands/history.ts";
import { addLiveCommands } from "./commands/live.ts";
import { addMcpCommand } from "./commands/mcp.ts";
import { addPreviewCommands } from "./commands/previews.ts";
import { completionScript } from "./completion.ts";

/** The program, ready to `parseAsync`. */
export function buildProgram(): Command {
  const program = new Command("computer")
    .description("Use a Computer from the shell: files, exec, previews, checkpoints, tokens (docs/CLI.md)")
    .option("-c, --computer <id>", "the computer to act on (default: COMPUTER_ID or `computer use`)")
    .option("--url <url>", "API base URL (default: COMPUTER_URL or `computer login`)")
    .option("--token <token>", "API token (default: COMPUTER_TOKEN or `computer login`)")
    .option("--json", "answer as JSON on stdout (shapes in docs/CLI.md)")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ outputError: (text, write) => write(`computer: ${text.replace(/^error: /, "")}`) })
    .exitOverride();
  addComputerCommands(program);
  addFileCommands(program);
  addExecCommands(program);
  addHistoryCommands(program);
  addPreviewCommands(program);
  addAccessCommands(program);
  addLiveCommands(program);
  addMcpCommand(program);
  program
    .command("completion")
    .description('print the shell completion script: eval "$(computer completion bash)"')
    .argument("<shell>", "bash or zsh")
    .action((shell: string) => {
      process.stdout.write(completionScript(program, shell));
    });
  for (const command of program.commands) propagate(command);
  return program;
}

/** Subcommands share the program's settings (error format, exit override). */
function propagate(command: Command): void {
  command.showHelpAfterError("(run with --help for usage)").exitOverride();
  command.configureOutput({
    outputError: (text, write) => write(`computer: ${text.replace(/^error: /, "")}`),
  });
  for (const child of command.commands) propagate(child);
}
