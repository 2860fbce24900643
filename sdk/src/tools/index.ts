/**
 * `@computer/sdk/tools`: the agent tools of a computer (read, write, edit, ls, find, grep, exec,
 * publish, checkpoint, restore) — the same definitions the MCP server serves — as plain
 * definitions, a runner, Vercel AI SDK tools and OpenAI function definitions (docs/MCP.md).
 */
export { applyEdits, type Edit, unifiedDiff } from "./edits.ts";
export {
  type OpenAIFunctionTool,
  openaiTools,
  runOpenAIToolCall,
  type VercelTool,
  vercelTools,
} from "./framework-tools.ts";
export { EXEC_LOG_DIR } from "./run-tools.ts";
export {
  type JsonSchema,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolResult,
} from "./tool.ts";
export { callTool, DEFAULT_MAX_OUTPUT_CHARS, TOOLS, type ToolSetOptions, toolsFor } from "./tool-set.ts";
