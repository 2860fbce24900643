/**
 * The shell scripts the fleet's @pulumi/command resources run: write the generated wrangler
 * config from the environment and `wrangler deploy` it with the admin token as a version
 * secret, `wrangler delete` it on destroy, and put the benchmark report into R2. Secrets
 * reach wrangler only through the environment: no file, argument or log line holds one.
 */
import { WORKER_BUILD_CONDITIONS } from "@computer/sdk/source-condition";

/** Quotes `value` as one POSIX shell word. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_/.,:=@%+-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

/** The Worker secret holding the admin token (worker/wrangler.jsonc `secrets.required`). */
export const ADMIN_TOKEN_SECRET = "COMPUTER_ADMIN_TOKEN";

/** Ends the here-document that carries the config; JSON text never contains this line. */
const CONFIG_EOF = "COMPUTER_WRANGLER_CONFIG_EOF";

/** Where and with what the deploy script runs. */
export interface DeployScriptOptions {
  /** Command words that run wrangler, e.g. `["node", "/repo/node_modules/wrangler/bin/wrangler.js"]`. */
  wrangler: readonly string[];
  /** Folder for the generated config and secrets file (created; one per Worker). */
  dir: string;
  /** The generated wrangler config (JSON text), written verbatim to `<dir>/wrangler.json`. */
  config: string;
}

/**
 * `wrangler deploy` of the generated config: uploads the Worker with its bindings and
 * migrations, builds and pushes the container image, updates the container application, and
 * sets the admin token secret on the new version. The config travels inside the script (so a
 * preview shows its diff); the secrets file only names the secret, whose value wrangler reads
 * from the environment. `extraArgs` are appended (e.g. `--dry-run`).
 */
export function deployScript(options: DeployScriptOptions, extraArgs: readonly string[] = []): string {
  if (options.config.split("\n").includes(CONFIG_EOF))
    throw new Error("the config contains the here-document end");
  const dir = shellQuote(options.dir);
  const command = [
    // The Worker bundled from the SDK's sources, as under `wrangler dev` (fleet's wranglerEnv).
    `WRANGLER_BUILD_CONDITIONS=${WORKER_BUILD_CONDITIONS.join(",")}`,
    ...options.wrangler.map(shellQuote),
    "deploy",
    "--config",
    `${dir}/wrangler.json`,
    "--secrets-file",
    `${dir}/secrets.env`,
    ...extraArgs.map(shellQuote),
  ];
  return [
    "set -eu",
    `mkdir -p ${dir}`,
    `cat > ${dir}/wrangler.json <<'${CONFIG_EOF}'`,
    options.config,
    CONFIG_EOF,
    `printf '%s\\n' '${ADMIN_TOKEN_SECRET}=\${${ADMIN_TOKEN_SECRET}}' > ${dir}/secrets.env`,
    command.join(" "),
  ].join("\n");
}

/**
 * `wrangler delete` of the Worker `name` (its Durable Objects, so every computer's files, go
 * with it). The container application and its images stay: `wrangler containers delete`.
 */
export function deleteWorkerScript(wrangler: readonly string[], name: string): string {
  return [
    "set -eu",
    [...wrangler.map(shellQuote), "delete", "--name", shellQuote(name), "--force"].join(" "),
  ].join("\n");
}

/** `wrangler r2 object put` of stdin (or of `from`'s stdout) as `bucket/key` in the account's R2. */
export function r2PutScript(
  wrangler: readonly string[],
  bucket: string,
  key: string,
  contentType = "application/json",
  /** A command whose stdout is the object, piped into wrangler (default: the command's stdin). */
  from?: string,
): string {
  return [
    "set -eu",
    [
      ...(from ? [from, "|"] : []),
      ...wrangler.map(shellQuote),
      "r2",
      "object",
      "put",
      shellQuote(`${bucket}/${key}`),
      "--pipe",
      "--remote",
      "--content-type",
      shellQuote(contentType),
    ].join(" "),
  ].join("\n");
}

/** The first `https://….workers.dev` URL wrangler printed, if any. */
export function workersDevUrl(output: string): string | undefined {
  return /https:\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)*\.workers\.dev\b/.exec(output)?.[0];
}
