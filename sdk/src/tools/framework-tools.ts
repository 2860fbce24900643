/**
 * The tool set in the shapes agent frameworks take, bound to one computer: the Vercel AI SDK's
 * `tool()` objects (`{ description, inputSchema, execute }`, the schema wrapped by the `jsonSchema`
 * helper the caller passes in, so this package needs no `ai` dependency) and OpenAI-style
 * function definitions with a dispatcher. Same names, descriptions, schemas, caps and errors as
 * the MCP server: both come from tool-set.ts.
 */
import type { Computer } from "../computer.ts";
import type { JsonSchema, ToolResult } from "./tool.ts";
import { callTool, type ToolSetOptions, toolsFor } from "./tool-set.ts";

/** A Vercel AI SDK tool as `tool({ description, inputSchema, execute })` builds it. */
export interface VercelTool<S> {
  description: string;
  inputSchema: S;
  execute(args: unknown, options?: { abortSignal?: AbortSignal }): Promise<string>;
}

/**
 * The tools for the Vercel AI SDK: `streamText({ tools: vercelTools(computer, { jsonSchema }) })`
 * with `jsonSchema` from `ai`. `execute` answers the tool's text (a mistake starts with its code).
 */
export function vercelTools<S>(
  computer: Computer,
  helpers: { jsonSchema: (schema: JsonSchema) => S },
  options: ToolSetOptions = {},
): Record<string, VercelTool<S>> {
  const tools: Record<string, VercelTool<S>> = {};
  for (const tool of toolsFor(options)) {
    tools[tool.name] = {
      description: tool.description,
      inputSchema: helpers.jsonSchema(tool.inputSchema),
      execute: async (args, run) =>
        (
          await callTool(computer, tool.name, args, {
            ...options,
            ...(run?.abortSignal ? { signal: run.abortSignal } : {}),
          })
        ).text,
    };
  }
  return tools;
}

/** An OpenAI-style function tool definition. */
export interface OpenAIFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** The tools as OpenAI-style function definitions (Chat Completions `tools`). */
export function openaiTools(options: ToolSetOptions = {}): OpenAIFunctionTool[] {
  return toolsFor(options).map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

/** Runs one OpenAI tool call (`{ name, arguments }` with JSON arguments) on `computer`. */
export async function runOpenAIToolCall(
  computer: Computer,
  call: { name: string; arguments: string },
  options: ToolSetOptions & { signal?: AbortSignal } = {},
): Promise<ToolResult> {
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {
    return { isError: true, text: `EINVAL: the arguments of ${call.name} are not JSON` };
  }
  return callTool(computer, call.name, args, options);
}
