/**
 * `computer exec` (live output, the command's exit code, stdin forwarded, Ctrl-C kills the
 * remote command and exits 130, `--detach` prints the id), `logs [-f] ID` (re-attach), `kill`,
 * `ps`. The result's status decides the exit code: docs/CLI.md.
 */
import { readFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import type { Command } from "commander";
import type { Computer } from "../../computer.ts";
import type { ExecRequest, ExecResult, RuntimeName } from "../../contract/types.ts";
import type { ExecStream } from "../../exec.ts";
import { contextOf } from "../context.ts";
import { answer, CliError, EXIT, printJson, printTable } from "../output.ts";
import { collect, commandLine, parseEnv, parseMillis } from "../parse.ts";

const RUNTIMES: readonly RuntimeName[] = ["container", "shell", "js"];

/** The CLI's exit code for a finished exec. */
export function exitCodeOf(result: ExecResult): number {
  switch (result.status) {
    case "completed":
      return result.exitCode ?? 0;
    case "failed":
      return result.exitCode ?? EXIT.error;
    case "timeout":
      return EXIT.timeout;
    case "killed":
      return EXIT.killed;
    case "running":
      return EXIT.error;
    default:
      return result.status satisfies never;
  }
}

/** Writes a finished exec's error (it could not run, or lost its runtime) as one line. */
function reportResultError(result: ExecResult): void {
  if (result.error !== undefined) {
    process.stderr.write(`computer: ${result.error.code}: ${result.error.message}\n`);
  } else if (result.status === "timeout") {
    process.stderr.write(`computer: ETIMEDOUT: ${result.id} ran past its timeout\n`);
  }
}

/**
 * Shows `stream` live until its exit and answers the exit code. Ctrl-C kills the remote exec
 * (a second Ctrl-C leaves at once) and the CLI then exits 130.
 */
async function follow(computer: Computer, stream: ExecStream, json: boolean): Promise<number> {
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    computer.exec.kill(stream.id).catch((err: unknown) => {
      process.stderr.write(`computer: could not kill ${stream.id}: ${String(err)}\n`);
      process.exit(EXIT.interrupted);
    });
  };
  process.on("SIGINT", onSigint);
  try {
    const result = await stream.result((event) => {
      if (!json) (event.type === "stdout" ? process.stdout : process.stderr).write(event.data);
    });
    if (json) printJson(result);
    else reportResultError(result);
    return interrupted ? EXIT.interrupted : exitCodeOf(result);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

interface ExecOptions {
  runtime: string;
  cwd?: string;
  env: string[];
  timeout?: string;
  file?: string;
  stdin: boolean;
  detach?: boolean;
}

async function execRequest(words: string[], opts: ExecOptions): Promise<ExecRequest> {
  if (!(RUNTIMES as readonly string[]).includes(opts.runtime)) {
    throw new CliError("usage", `--runtime: expected one of ${RUNTIMES.join(", ")}, got '${opts.runtime}'`);
  }
  if (opts.file !== undefined && words.length > 0)
    throw new CliError("usage", "exec: give a command or --file, not both");
  const source = opts.file !== undefined ? await readFile(opts.file, "utf8") : commandLine(words);
  if (source.trim() === "") throw new CliError("usage", "exec: no command (computer exec -- COMMAND...)");
  const request: ExecRequest = { runtime: opts.runtime as RuntimeName, source };
  if (opts.cwd !== undefined) request.cwd = opts.cwd;
  if (opts.env.length > 0) request.env = parseEnv(opts.env);
  if (opts.timeout !== undefined) request.timeoutMs = parseMillis(opts.timeout, "--timeout");
  // A terminal is not input; a pipe or a file is forwarded whole (the API takes stdin as text).
  if (opts.stdin && !process.stdin.isTTY) request.stdin = await text(process.stdin);
  return request;
}

/** Adds the exec commands to `program`. */
export function addExecCommands(program: Command): void {
  program
    .command("exec")
    .description("run a command on the computer; exits with its exit code")
    .argument("[command...]", "the command (after --); one word is a whole command line")
    .option("--runtime <runtime>", "container, shell or js", "container")
    .option("--cwd <dir>", "working directory (default /workspace)")
    .option("-e, --env <K=V>", "environment variable (repeatable)", collect, [])
    .option("--timeout <duration>", "timeout: milliseconds or 10s, 5m, ...")
    .option("-f, --file <file>", "take the source from a local file (a script, or a js module)")
    .option("--no-stdin", "do not forward stdin")
    .option("-d, --detach", "start it and print its id; follow with `computer logs -f ID`")
    .action(async (words: string[], opts: ExecOptions, command: Command) => {
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      const request = await execRequest(words, opts);
      if (opts.detach) {
        const id = await computer.exec.start(request);
        return answer(ctx.json, { id }, `${id}`);
      }
      process.exitCode = await follow(computer, await computer.exec.stream(request), ctx.json);
    });

  program
    .command("logs")
    .description("the output of an exec; -f follows it live until it ends")
    .argument("<id>", "exec id (ex_...)")
    .option("-f, --follow", "stream until the exec ends, then exit with its code")
    .option("--after <seq>", "only output after this sequence number", (v: string) => {
      if (!/^-?\d+$/.test(v)) throw new CliError("usage", `--after: expected a sequence number, got '${v}'`);
      return Number(v);
    })
    .action(async (id: string, opts: { follow?: boolean; after?: number }, command: Command) => {
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      if (opts.follow || opts.after !== undefined) {
        const after = opts.after === undefined ? {} : { after: opts.after };
        process.exitCode = await follow(computer, await computer.exec.attach(id, after), ctx.json);
        return;
      }
      const result = await computer.exec.get(id);
      if (ctx.json) return printJson(result);
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
    });

  program
    .command("kill")
    .description("kill a running exec")
    .argument("<id>", "exec id")
    .action(async (id: string, _opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const result = await ctx.computer().exec.kill(id);
      if (ctx.json) printJson(result);
      else process.stdout.write(`${result.id} ${result.status}\n`);
    });

  program
    .command("ps")
    .description("recent execs, newest first")
    .option("-n, --limit <n>", "how many (1..100)", "20")
    .action(async (opts: { limit: string }, command: Command) => {
      const ctx = await contextOf(command);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new CliError("usage", "--limit: expected 1..100");
      const execs = await ctx.computer().exec.list({ limit });
      if (ctx.json) return printJson({ execs });
      printTable(
        ["ID", "RUNTIME", "STATUS", "EXIT", "MS", "CREATED"],
        execs.map((e) => [
          e.id,
          e.runtime,
          e.status,
          e.exitCode === null ? "-" : String(e.exitCode),
          String(e.durationMs),
          e.createdAt,
        ]),
      );
    });
}
