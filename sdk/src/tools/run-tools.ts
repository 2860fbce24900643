/**
 * The tools that run or keep things: `exec` (a command in the container or the shell, or a js
 * module; answers the exit code and the output capped for a model: head and tail kept, the
 * whole output left in a log file it names), `publish` (the public link), `checkpoint` and
 * `restore` (the agent's undo).
 */
import type { RuntimeName } from "../contract/types.ts";
import { defineTool, type ToolContext, workspacePath } from "./tool.ts";

/** Where exec's output goes, under /workspace, one file per exec. */
export const EXEC_LOG_DIR = ".computer-logs";

function logName(): string {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
  return `${EXEC_LOG_DIR}/exec-${Date.now().toString(36)}-${random}.log`;
}

/** The command with stdout and stderr both sent to `log` (its exit status kept). */
function logged(command: string, log: string): string {
  return `mkdir -p /workspace/${EXEC_LOG_DIR} && { ${command}\n} > /workspace/${log} 2>&1`;
}

/** The log's text for a model: all of it, or its head and tail with a note naming the file. */
async function logText({ computer, maxOutputChars, signal }: ToolContext, log: string): Promise<string> {
  const { size } = await computer.files.head(log, { signal });
  if (size <= maxOutputChars) {
    const text = await computer.files.readText(log, { signal });
    await computer.files.remove(log, { signal });
    return text;
  }
  const half = Math.floor(Math.max(0, maxOutputChars - 300) / 2);
  const head = await computer.files.readText(log, {
    signal,
    range: { offset: 0, length: Math.max(1, half) },
  });
  const tail = await computer.files.readText(log, { signal, range: { offset: size - Math.max(1, half) } });
  return (
    `${head}\n[... ${size - 2 * half} of ${size} bytes of output cut; all of it is in ${log}: ` +
    `read it with read {path: "${log}", offset, limit} or search it with grep ...]\n${tail}`
  );
}

/** `exec {runtime?, command, cwd?, timeoutMs?}`. */
export const execTool = defineTool<{
  runtime?: RuntimeName;
  command: string;
  cwd?: string;
  timeoutMs?: number;
}>({
  name: "exec",
  description:
    "Run a command on the computer and wait for it: runtime container (Linux, default: any program, " +
    "/workspace mounted), shell (a fast bash in a sandbox, no container) or js (command is an ES module whose " +
    "default export runs). Answers the exit code and the output (stdout and stderr together); long output " +
    "keeps its head and tail and names the log file with all of it. It waits for the command to end: to " +
    "show a server (a dev server on a port), start it in the background through the API (exec with " +
    "detach: true) and open a preview URL for its port (POST /ports, or `computer preview PORT`).",
  inputSchema: {
    type: "object",
    properties: {
      runtime: { enum: ["container", "shell", "js"], description: "Where to run (default container)" },
      command: { type: "string", minLength: 1, description: "Shell command line (or ES module text for js)" },
      cwd: { type: "string", description: "Working directory relative to /workspace (default: the root)" },
      timeoutMs: {
        type: "integer",
        minimum: 1,
        description: "Stop the command after this many milliseconds",
      },
    },
    required: ["command"],
    additionalProperties: false,
  },
  readOnly: false,
  async run(ctx, { runtime = "container", command, cwd, timeoutMs }) {
    const log = runtime === "js" ? undefined : logName();
    const result = await ctx.computer.exec.run(
      {
        runtime,
        source: log === undefined ? command : logged(command, log),
        ...(cwd === undefined ? {} : { cwd: `/workspace/${workspacePath(cwd)}`.replace(/\/\.$/, "") }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
      { signal: ctx.signal },
    );
    const head = `exit code: ${result.exitCode ?? "none"} (${result.status}, ${result.durationMs} ms)`;
    const problem =
      result.error === undefined ? "" : `\nerror: ${result.error.code}: ${result.error.message}`;
    let output: string;
    if (log !== undefined && (await ctx.computer.files.exists(log, { signal: ctx.signal }))) {
      output = await logText(ctx, log);
      // What the wrapper itself printed (a cwd that does not exist, a log that could not be made).
      const own = `${result.stdout}${result.stderr}`;
      if (own !== "") output = `${own}${output}`;
    } else {
      output = `${result.stdout}${result.stderr}`;
      if (output.length > ctx.maxOutputChars) {
        const half = Math.floor(Math.max(0, ctx.maxOutputChars - 200) / 2);
        output = `${output.slice(0, half)}\n[... ${output.length - 2 * half} characters cut ...]\n${output.slice(-half)}`;
      }
    }
    const value = result.value === undefined ? "" : `\nvalue: ${JSON.stringify(result.value)}`;
    return {
      text: `${head}${problem}${value}\n${output}`,
      isError: result.status !== "completed" && result.exitCode === null,
    };
  },
});

/** `publish {path, name?}`. */
export const publishTool = defineTool<{ path: string; name?: string }>({
  name: "publish",
  description:
    "Publish a file or a directory of the computer (a site: its index.html is served) and answer its public " +
    "link, which works without a token for 7 days. Each publish of a name makes a new version.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File or directory relative to /workspace" },
      name: { type: "string", description: "Artifact name (default: the path's last segment)" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  readOnly: false,
  async run({ computer, signal }, { path, name }) {
    const published = await computer.publish(
      { path: workspacePath(path), ...(name === undefined ? {} : { name }) },
      { signal },
    );
    return {
      text: `published ${published.name}@${published.version} (${published.files.length} files, ${published.bytes} bytes): ${published.url}`,
    };
  },
});

/** `checkpoint {name}`. */
export const checkpointTool = defineTool<{ name: string }>({
  name: "checkpoint",
  description:
    "Save the whole file tree of the computer as a named checkpoint, to come back to with restore (an undo " +
    "point before a risky change). Names are letters, digits, '.', '_' and '-'; each name once.",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" } },
    required: ["name"],
    additionalProperties: false,
  },
  readOnly: false,
  async run({ computer, signal }, { name }) {
    const created = await computer.checkpoints.create(name, { signal });
    return { text: `checkpoint ${created.name} saved (revision ${created.rev})` };
  },
});

/** `restore {name}`. */
export const restoreTool = defineTool<{ name: string }>({
  name: "restore",
  description:
    "Put the whole file tree of the computer back as it was at a checkpoint (every change since is undone).",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string", description: "A checkpoint's name" } },
    required: ["name"],
    additionalProperties: false,
  },
  readOnly: false,
  async run({ computer, signal }, { name }) {
    const restored = await computer.checkpoints.restore(name, { signal });
    return { text: `restored checkpoint ${restored.name} (revision ${restored.rev})` };
  },
});
