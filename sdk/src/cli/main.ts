#!/usr/bin/env node
/**
 * The `computer` executable: runs the command tree and turns every failure into one line on
 * stderr and the exit code docs/CLI.md documents.
 */
import { CommanderError } from "commander";
import { describeError, EXIT } from "./output.ts";
import { buildProgram } from "./program.ts";

// `computer cat x | head` closes the pipe early: that ends the output, it is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? EXIT.ok);
  throw err;
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and version are exit 0; commander already printed its message.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    const { line, exit } = describeError(err);
    process.stderr.write(`${line}\n`);
    process.exitCode = exit;
  }
}
