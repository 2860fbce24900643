/**
 * computerd's entry point: `computerd <command> [options]`. A thin dispatcher;
 * each command lives in src/commands/ and exports `run(args)`, resolving to the
 * process exit code.
 */

import { countExternalMemoryGlobally } from "./v8-heap.ts";

/** A command module. */
export interface Command {
  /** One line for `computerd help`. */
  summary: string;
  run(args: string[]): Promise<number>;
}

/** Every command, loaded on demand (each loads only its own modules). */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  mount: async () => (await import("./commands/mount.ts")).mountCommand,
  serve: async () => (await import("./commands/serve.ts")).serveCommand,
  host: async () => (await import("./host/host-command.ts")).hostCommand,
};

async function help(): Promise<number> {
  const lines = ["usage: computerd <command> [options]", ""];
  for (const [name, load] of Object.entries(COMMANDS))
    lines.push(`  ${name.padEnd(10)} ${(await load()).summary}`);
  console.log(lines.join("\n"));
  return 0;
}

/** Runs the command named by argv[0]. */
export async function main(argv: string[]): Promise<number> {
  // Before any command moves bytes (v8-heap.ts); bin/computerd.js enters here too.
  countExternalMemoryGlobally();
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") return help();
  const load = COMMANDS[name];
  if (!load) {
    console.error(`computerd: unknown command "${name}" (try: computerd help)`);
    return 2;
  }
  return (await load()).run(args);
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error("computerd:", err);
      process.exitCode = 1;
    },
  );
}
