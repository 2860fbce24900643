/**
 * What a command's action works with: the SDK client built from flags, environment and config
 * file; the computer to act on (`--computer`, `COMPUTER_ID` or the config's default); `--json`.
 */
import type { Command } from "commander";
import { ComputerClient } from "../client.ts";
import type { Computer } from "../computer.ts";
import { type GlobalOptions, type Resolved, resolveConfig } from "./config.ts";
import { CliError } from "./output.ts";

/** A command's view of the CLI's configuration. */
export interface Context {
  client: ComputerClient;
  config: Resolved;
  json: boolean;
  /** The computer named by `--computer` (or the default); a usage error when there is none. */
  computer(): Computer;
}

/** The context of `command` (its own options merged with the program's). */
export async function contextOf(command: Command): Promise<Context> {
  const flags = command.optsWithGlobals<GlobalOptions>();
  const config = await resolveConfig(flags);
  const client = new ComputerClient({ url: config.url, ...(config.token ? { token: config.token } : {}) });
  return {
    client,
    config,
    json: flags.json === true,
    computer() {
      if (config.computer === undefined) {
        throw new CliError(
          "usage",
          "no computer: pass --computer ID, set COMPUTER_ID or run `computer use ID`",
        );
      }
      return client.computer(config.computer);
    },
  };
}
