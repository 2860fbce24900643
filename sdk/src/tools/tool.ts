/**
 * The shape of one agent tool, shared by the MCP server and `@computer/sdk/tools`: a name, a
 * description and a JSON Schema written for models, whether it only reads, and `run`, which
 * answers text. A user's mistake is a result with `isError` and the POSIX code in its text.
 */
import type { Computer } from "../computer.ts";

/** A JSON Schema object (the tools' input schemas). */
export type JsonSchema = { [key: string]: unknown };

/** What a tool runs with. */
export interface ToolContext {
  computer: Computer;
  /** Longest text a tool answers (characters); longer output is cut with a note. */
  maxOutputChars: number;
  signal?: AbortSignal | undefined;
}

/** A tool's answer: text for the model; `isError` for a user's mistake. */
export interface ToolResult {
  text: string;
  isError?: boolean;
}

/** One tool. */
export interface ToolDefinition<A = Record<string, unknown>> {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** True when the tool changes nothing (an `ro` token may call it). */
  readOnly: boolean;
  /** Runs with arguments already checked against `inputSchema`. */
  run(ctx: ToolContext, args: A): Promise<ToolResult>;
}

/** A tool's mistake to report as `isError` (bad arguments, an edit that does not apply). */
export class ToolError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "ToolError";
    this.code = code;
  }
}

/** Defines a tool with typed arguments. */
export function defineTool<A>(tool: ToolDefinition<A>): ToolDefinition<A> {
  return tool;
}

/** Workspace paths in tool arguments and answers: relative to /workspace, no leading slash. */
export function workspacePath(path: string | undefined): string {
  const trimmed = (path ?? "").replace(/^\/workspace(\/|$)/, "").replace(/^\/+/, "");
  return trimmed === "" ? "." : trimmed;
}

/** The API path for a tool's path argument ("" is the root). */
export function apiPath(path: string | undefined): string {
  const p = workspacePath(path);
  return p === "." ? "" : p;
}

/** `text` cut to `max` characters, keeping the head and the tail, with a note of what was cut. */
export function capText(text: string, max: number, hint: string): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 200);
  const head = text.slice(0, Math.ceil(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  return `${head}\n[... ${text.length - head.length - tail.length} characters cut; ${hint} ...]\n${tail}`;
}
