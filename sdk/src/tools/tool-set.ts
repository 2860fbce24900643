/**
 * The one tool set: every tool's definition in order, the runner that checks arguments against
 * the tool's JSON Schema and turns a user's mistake (a ComputerError, a ToolError, bad
 * arguments) into an `isError` result with the POSIX code first in its text. The MCP server and
 * the framework exports (framework-tools.ts) both call `callTool`.
 */
import { type Schema, Validator } from "@cfworker/json-schema";
import type { Computer } from "../computer.ts";
import { isComputerError } from "../error.ts";
import { findTool, grepTool, lsTool, readTool } from "./read-tools.ts";
import { checkpointTool, execTool, publishTool, restoreTool } from "./run-tools.ts";
import { type ToolContext, type ToolDefinition, ToolError, type ToolResult } from "./tool.ts";
import { editTool, writeTool } from "./write-tools.ts";

/** Default output cap of every tool, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

/** Every tool, in the order they are listed. */
export const TOOLS: readonly ToolDefinition[] = [
  readTool,
  writeTool,
  editTool,
  lsTool,
  findTool,
  grepTool,
  execTool,
  publishTool,
  checkpointTool,
  restoreTool,
] as readonly ToolDefinition[] as ToolDefinition[];

/** Options of a tool set. */
export interface ToolSetOptions {
  /** Output cap of every tool (default DEFAULT_MAX_OUTPUT_CHARS). */
  maxOutputChars?: number;
  /** Only the tools that change nothing (what an `ro` token may call). */
  readOnly?: boolean;
}

/** The tools `options` allows. */
export function toolsFor(options: ToolSetOptions = {}): ToolDefinition[] {
  return TOOLS.filter((t) => !options.readOnly || t.readOnly);
}

const validators = new Map<string, Validator>();

function validate(tool: ToolDefinition, args: unknown): string | undefined {
  let validator = validators.get(tool.name);
  if (validator === undefined) {
    validator = new Validator(tool.inputSchema as Schema, "2020-12", false);
    validators.set(tool.name, validator);
  }
  const result = validator.validate(args);
  if (result.valid) return undefined;
  const leaves = result.errors.filter((e) => !/^#?$/.test(e.instanceLocation) || result.errors.length === 1);
  return (leaves.length > 0 ? leaves : result.errors)
    .slice(0, 3)
    .map((e) => `${e.instanceLocation.replace(/^#\/?/, "") || "arguments"}: ${e.error}`)
    .join("; ");
}

/** One line for a user's mistake: `CODE: message: path`. */
function mistake(code: string, message: string, path?: string): ToolResult {
  const text = message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
  return { isError: true, text: `${code}: ${text}${path ? `: ${path.replace(/^\//, "")}` : ""}` };
}

/**
 * Runs tool `name` with `args` on `computer`. Never throws for a user's mistake: an unknown
 * tool, arguments that do not fit the schema, or an API error come back as `isError` results.
 */
export async function callTool(
  computer: Computer,
  name: string,
  args: unknown,
  options: ToolSetOptions & { signal?: AbortSignal } = {},
): Promise<ToolResult> {
  const tool = toolsFor(options).find((t) => t.name === name);
  if (tool === undefined) {
    const known = toolsFor(options).map((t) => t.name);
    return mistake(
      TOOLS.some((t) => t.name === name) ? "EFORBIDDEN" : "EINVAL",
      `no tool '${name}' here; tools: ${known.join(", ")}`,
    );
  }
  const problem = validate(tool, args ?? {});
  if (problem !== undefined) return mistake("EINVAL", `bad arguments for ${name}: ${problem}`);
  const ctx: ToolContext = {
    computer,
    maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
    signal: options.signal,
  };
  try {
    return await tool.run(ctx, (args ?? {}) as Record<string, unknown>);
  } catch (err) {
    if (err instanceof ToolError) return mistake(err.code, err.message);
    if (isComputerError(err)) return mistake(err.code, err.message, err.path);
    return mistake("EIO", err instanceof Error ? err.message : String(err));
  }
}
