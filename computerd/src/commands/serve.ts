/**
 * `computerd serve [options]`: the daemon's HTTP server (exec, health, connect) until
 * SIGTERM/SIGINT. Options: `computerd serve --help` (src/config.ts). Prints one JSON line
 * per lifecycle event on stdout ({"event":"listening",...}, {"event":"stopped",...}).
 */
import { ConfigError, parseConfig } from "../config.ts";
import type { Command } from "../main.ts";
import { startDaemon, VERSION } from "../server/daemon.ts";

async function run(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseConfig>;
  try {
    // Takes the secret out of process.env before anything else can copy the environment.
    parsed = parseConfig(args, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`computerd serve: ${error.message}`);
    return 2;
  }
  if (parsed.kind === "help") {
    console.log(parsed.text);
    return 0;
  }
  const { config } = parsed;
  const daemon = await startDaemon(config);
  console.log(
    JSON.stringify({
      event: "listening",
      host: config.host,
      port: daemon.port,
      pid: process.pid,
      version: VERSION,
    }),
  );
  const signal = await new Promise<string>((resolve) => {
    for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(name, () => resolve(name));
  });
  await daemon.close();
  console.log(JSON.stringify({ event: "stopped", signal }));
  return 0;
}

/** The serve command. */
export const serveCommand: Command = {
  summary: "run the HTTP server: exec, health, connect (see serve --help)",
  run,
};
