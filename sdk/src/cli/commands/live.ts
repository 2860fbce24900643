/**
 * `computer watch [PATH]` — every change to the tree as it happens (one line each, or one JSON
 * object a line with --json) — and `computer shell` — a terminal on the computer in this one:
 * raw mode, the window's size follows, and the remote shell's exit status becomes the CLI's.
 */
import type { Command } from "commander";
import type { ChangeJson } from "../../contract/types.ts";
import { contextOf } from "../context.ts";
import { CliError, EXIT } from "../output.ts";

function changeLine(change: ChangeJson): string {
  if (change.event === "deleted") return `deleted  ${change.path}`;
  const size = change.type === "file" ? ` ${change.size ?? 0}` : "";
  return `${change.type === "dir" ? "dir    " : "changed"}  ${change.path}${size}`;
}

interface ShellOptions {
  runtime: string;
  cwd?: string;
}

/** The exit status a terminal's end gives the CLI: its code, or 128 + the signal for a kill. */
export function shellExitCode(exit: { exitCode?: number | null; signal?: string }): number {
  if (typeof exit.exitCode === "number") return exit.exitCode;
  return exit.signal === "SIGHUP" ? 129 : EXIT.error;
}

/** Runs a terminal attached to this process's stdin/stdout until the remote shell ends. */
async function runShell(url: string, protocols: string[]): Promise<number> {
  const socket = new WebSocket(url, protocols);
  socket.binaryType = "arraybuffer";
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  return new Promise<number>((resolve, reject) => {
    let status: number | undefined;
    const onInput = (chunk: Buffer) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(new Uint8Array(chunk));
    };
    const onResize = () => {
      if (socket.readyState === WebSocket.OPEN && process.stdout.columns)
        socket.send(
          JSON.stringify({ type: "resize", cols: process.stdout.columns, rows: process.stdout.rows }),
        );
    };
    const cleanup = () => {
      stdin.off("data", onInput);
      process.stdout.off("resize", onResize);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
    };
    socket.addEventListener("open", () => {
      if (raw) stdin.setRawMode(true);
      stdin.on("data", onInput);
      stdin.resume();
      process.stdout.on("resize", onResize);
      onResize();
    });
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data) as { type: string; exitCode?: number | null; signal?: string };
        if (message.type === "exit") status = shellExitCode(message);
        return;
      }
      process.stdout.write(new Uint8Array(event.data as ArrayBuffer));
    });
    socket.addEventListener("close", () => {
      cleanup();
      resolve(status ?? EXIT.unreachable);
    });
    socket.addEventListener("error", () => {
      cleanup();
      reject(new CliError("local", "ECONNREFUSED: the terminal's WebSocket failed"));
    });
  });
}

/** Adds `watch` and `shell` to `program`. */
export function addLiveCommands(program: Command): void {
  program
    .command("watch")
    .description("print every change to the tree as it happens, from any runtime or the API")
    .argument("[path]", "only changes at or under this path")
    .option("--after <cursor>", 'start after this cursor ("0": the whole tree first)', "now")
    .action(async (path: string | undefined, opts: { after: string }, command: Command) => {
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      const abort = new AbortController();
      process.once("SIGINT", () => abort.abort());
      const options = { after: opts.after, signal: abort.signal, ...(path === undefined ? {} : { path }) };
      for await (const change of computer.watch(options)) {
        process.stdout.write(ctx.json ? `${JSON.stringify(change)}\n` : `${changeLine(change)}\n`);
      }
    });

  program
    .command("shell")
    .description("open a terminal on the computer here (raw mode); exits with the remote shell's status")
    .option("--runtime <runtime>", "container (a real pty) or shell (line-edited just-bash)", "container")
    .option("--cwd <dir>", "directory to start in (default /workspace)")
    .action(async (opts: ShellOptions, command: Command) => {
      if (opts.runtime !== "container" && opts.runtime !== "shell")
        throw new CliError("usage", `--runtime: expected container or shell, got '${opts.runtime}'`);
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      const cols = process.stdout.columns ?? 80;
      const rows = process.stdout.rows ?? 24;
      const opened = await computer.terminals.open({
        runtime: opts.runtime,
        cols,
        rows,
        ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
      });
      const token = ctx.config.token;
      const protocols = ["computer.terminal.v1", ...(token ? [`bearer.${token}`] : [])];
      process.exitCode = await runShell(computer.terminals.attachUrl(opened.id), protocols);
    });
}
