/**
 * A terminal in the shell runtime: just-bash, line-edited. The DO is the line discipline
 * (echo, backspace, Ctrl-U, history with the arrow keys, Ctrl-C, Ctrl-D) and runs each line as
 * a `shell` exec (journaled like any exec, so it shows in the exec history) in the terminal's
 * working directory; `cd DIR` on a line of its own changes that directory, and `exit [N]` ends
 * the terminal. Variables do not carry from one line to the next: each line is a fresh shell.
 */

import type { ExecListener } from "../exec/exec-manager.ts";
import type { ExecBody } from "../exec/exec-request.ts";
import { WORKSPACE_DIR } from "../exec/exec-request.ts";
import type { ExecResult } from "../exec/journal.ts";
import type { TerminalBackend, TerminalEvents } from "./terminal.ts";

/** What a shell terminal needs from the DO. */
export interface ShellTerminalDeps {
  /** Starts an exec with `listener` attached from its first event. */
  start(body: ExecBody, listener: ExecListener): Promise<{ id: string; finished: Promise<ExecResult> }>;
  kill(execId: string): Promise<unknown>;
  /** True when the vfs path (relative to the workspace root, "/" = /workspace) is a directory. */
  isDirectory(path: string): boolean;
}

const encoder = new TextEncoder();
const HISTORY_MAX = 200;

/** `cd`, `cd DIR` or `cd 'DIR'` on a line of its own: the directory asked for (undefined: home). */
function cdTarget(line: string): { dir: string | undefined } | undefined {
  const match = /^cd(?:\s+(?:'([^']*)'|"([^"]*)"|(\S+)))?\s*$/.exec(line);
  if (match === null) return undefined;
  return { dir: match[1] ?? match[2] ?? match[3] };
}

/** Resolves `target` against `cwd` (both under /workspace); undefined when it leaves it. */
export function resolveDir(cwd: string, target: string | undefined): string | undefined {
  if (target === undefined || target === "~") return WORKSPACE_DIR;
  const parts = (target.startsWith("/") ? target : `${cwd}/${target}`).split("/");
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  const dir = `/${out.join("/")}`;
  if (dir === WORKSPACE_DIR || dir.startsWith(`${WORKSPACE_DIR}/`)) return dir;
  return undefined;
}

/** Starts a line-edited shell terminal; resolves at once (nothing to spawn until a line runs). */
export function openShellTerminal(
  deps: ShellTerminalDeps,
  spec: { cwd: string; env: Record<string, string>; cols: number; rows: number },
  events: TerminalEvents,
): TerminalBackend {
  const decoder = new TextDecoder();
  const history: string[] = [];
  let historyAt = 0;
  let cwd = spec.cwd;
  let size = { cols: spec.cols, rows: spec.rows };
  let line = "";
  let pendingEscape = "";
  let running: string | undefined;
  let lastStatus = 0;
  let ended = false;
  const print = (text: string) => events.output(encoder.encode(text));
  const prompt = () => print(`\x1b[1;32mcomputer\x1b[0m:\x1b[1;34m${cwd}\x1b[0m$ `);
  const replaceLine = (next: string) => {
    print(`\r\x1b[2K`);
    prompt();
    line = next;
    print(line);
  };
  const end = (code: number | null, signal?: string) => {
    if (ended) return;
    ended = true;
    events.exit(code, signal);
  };

  const run = async (text: string) => {
    const command = text.trim();
    if (command !== "" && history.at(-1) !== command) history.push(command);
    if (history.length > HISTORY_MAX) history.shift();
    historyAt = history.length;
    if (command === "") return prompt();
    const exit = /^exit(?:\s+(\d+))?\s*$/.exec(command);
    if (exit) return end(exit[1] === undefined ? lastStatus : Number(exit[1]) & 255);
    const cd = cdTarget(command);
    if (cd) {
      const dir = resolveDir(cwd, cd.dir);
      const inVfs = dir === undefined ? undefined : dir.slice(WORKSPACE_DIR.length) || "/";
      if (dir !== undefined && inVfs !== undefined && deps.isDirectory(inVfs)) {
        cwd = dir;
        lastStatus = 0;
      } else {
        print(`cd: ${cd.dir ?? ""}: No such directory\r\n`);
        lastStatus = 1;
      }
      return prompt();
    }
    const listener: ExecListener = (event) => {
      if (event.kind === "output") print(event.event.data.replace(/\r?\n/g, "\r\n"));
    };
    try {
      const env = { ...spec.env, COLUMNS: String(size.cols), LINES: String(size.rows) };
      const body: ExecBody = {
        runtime: "shell",
        source: command,
        cwd,
        env,
        stdin: undefined,
        input: undefined,
        timeoutMs: undefined,
        detach: false,
      };
      const { id, finished } = await deps.start(body, listener);
      running = id;
      const result = await finished;
      lastStatus = result.exitCode ?? (result.status === "killed" ? 130 : 1);
      if (result.error !== undefined)
        print(`\x1b[31m${result.error.code}: ${result.error.message}\x1b[0m\r\n`);
    } catch (err) {
      print(`\x1b[31m${(err as Error).message}\x1b[0m\r\n`);
      lastStatus = 1;
    }
    running = undefined;
    if (!ended) prompt();
  };

  const key = (ch: string) => {
    if (running !== undefined) {
      // While a line runs only Ctrl-C means something: it kills that exec.
      if (ch === "\x03") {
        print("^C");
        void deps.kill(running).catch(() => undefined);
      }
      return;
    }
    if (pendingEscape !== "") {
      pendingEscape += ch;
      if (pendingEscape.length === 2 && ch !== "[" && ch !== "O") pendingEscape = "";
      else if (pendingEscape.length > 2 && /[A-Za-z~]/.test(ch)) {
        const final = pendingEscape.at(-1);
        pendingEscape = "";
        if (final === "A" && historyAt > 0) replaceLine(history[--historyAt] ?? "");
        else if (final === "B" && historyAt < history.length) replaceLine(history[++historyAt] ?? "");
      }
      return;
    }
    switch (ch) {
      case "\x1b":
        pendingEscape = ch;
        return;
      case "\r":
      case "\n": {
        print("\r\n");
        const text = line;
        line = "";
        void run(text);
        return;
      }
      case "\x7f":
      case "\b":
        if (line.length > 0) {
          line = [...line].slice(0, -1).join("");
          print("\b \b");
        }
        return;
      case "\x03":
        line = "";
        print("^C\r\n");
        lastStatus = 130;
        return prompt();
      case "\x04":
        if (line === "") {
          print("exit\r\n");
          end(lastStatus);
        }
        return;
      case "\x15":
        replaceLine("");
        return;
      default:
        if (ch >= " " || ch === "\t") {
          line += ch;
          print(ch);
        }
    }
  };

  prompt();
  return {
    write(data) {
      if (ended) return;
      for (const ch of decoder.decode(data, { stream: true })) key(ch);
    },
    resize(cols, rows) {
      size = { cols, rows };
    },
    close() {
      if (running !== undefined) void deps.kill(running).catch(() => undefined);
      end(null, "SIGHUP");
    },
  };
}
