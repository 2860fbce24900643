/**
 * Where the CLI finds its API: `COMPUTER_URL` / `COMPUTER_TOKEN` / `COMPUTER_ID` override the
 * config file that `computer login` writes (JSON, mode 0600, in the user's config directory:
 * `$XDG_CONFIG_HOME/computer/config.json`, or `COMPUTER_CONFIG_DIR`), and `--url`, `--token`,
 * `--computer` override both.
 */
import type Conf from "conf";
import { CliError } from "./output.ts";

/** What the config file holds. */
export interface StoredConfig {
  url?: string;
  token?: string;
  /** The computer commands act on when `--computer` is not given. */
  computer?: string;
}

/** The config file (created on first write, always 0600); `conf` loads only when it is needed. */
export async function configStore(): Promise<Conf<StoredConfig>> {
  const { default: Conf } = await import("conf");
  const dir = process.env.COMPUTER_CONFIG_DIR;
  return new Conf<StoredConfig>({
    projectName: "computer",
    projectSuffix: "",
    configFileMode: 0o600,
    ...(dir ? { cwd: dir } : {}),
  });
}

/** Options every command may take. */
export interface GlobalOptions {
  url?: string;
  token?: string;
  computer?: string;
  json?: boolean;
}

/** The URL, token and default computer in force. */
export interface Resolved {
  url: string;
  token: string | undefined;
  computer: string | undefined;
}

/** Resolves flags over environment over the config file. Throws when no URL is known. */
export async function resolveConfig(flags: GlobalOptions): Promise<Resolved> {
  const env = process.env;
  const complete =
    (flags.url ?? env.COMPUTER_URL) &&
    (flags.token ?? env.COMPUTER_TOKEN) &&
    (flags.computer ?? env.COMPUTER_ID);
  const stored: StoredConfig = complete ? {} : (await configStore()).store;
  const url = flags.url ?? env.COMPUTER_URL ?? stored.url;
  if (url === undefined || url === "") {
    throw new CliError(
      "usage",
      "no API URL: run `computer login --url URL --token TOKEN` or set COMPUTER_URL",
    );
  }
  return {
    url,
    token: flags.token ?? env.COMPUTER_TOKEN ?? stored.token,
    computer: flags.computer ?? env.COMPUTER_ID ?? stored.computer,
  };
}
