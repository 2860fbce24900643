/**
 * The reading tools: `read` (a text file or a line range, line numbers with a range; a binary
 * file answers its kind and size instead of bytes, or base64 when asked, up to the cap), `ls` (depth, sizes, types), `find` (glob, type,
 * limit) and `grep` (regex on the vfs's own search, path glob, context lines, limit).
 */
import { toBase64 } from "../base64.ts";
import { binaryKind } from "./file-kind.ts";
import { apiPath, capText, defineTool, ToolError, workspacePath } from "./tool.ts";

const DEFAULT_LINES = 2000;
const SNIFF_BYTES = 8192;

/** `read {path, offset?, limit?, base64?}`. */
export const readTool = defineTool<{ path: string; offset?: number; limit?: number; base64?: boolean }>({
  name: "read",
  description:
    "Read a text file of the computer (paths are relative to /workspace). Without offset/limit it answers the " +
    "whole file (cut with a note past the output cap); with them it answers that line range, each line " +
    "prefixed with its number. A binary file answers its kind and size instead of its bytes, or its bytes as " +
    "base64 with base64: true (only when that fits the output cap).",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path relative to /workspace, e.g. src/index.ts" },
      offset: { type: "integer", minimum: 1, description: "First line to read (1-based)" },
      limit: {
        type: "integer",
        minimum: 1,
        description: `How many lines (default ${DEFAULT_LINES} with offset)`,
      },
      base64: {
        type: "boolean",
        description: "For a binary file: answer its bytes as base64 (up to the cap)",
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  readOnly: true,
  async run({ computer, maxOutputChars, signal }, { path, offset, limit, base64 }) {
    const file = await computer.files.open(apiPath(path), { signal });
    const reader = file.body.getReader();
    const decoder = new TextDecoder();
    const numbered = offset !== undefined || limit !== undefined;
    const first = offset ?? 1;
    const last = numbered ? first + (limit ?? DEFAULT_LINES) - 1 : Number.POSITIVE_INFINITY;
    let text = "";
    let line = 1;
    let partial = "";
    let sniffed = false;
    let out = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!sniffed) {
          sniffed = true;
          if (value.subarray(0, SNIFF_BYTES).includes(0)) {
            const about = `${workspacePath(path)}: binary file (${binaryKind(value)}), ${file.size} bytes`;
            const encodedChars = Math.ceil(file.size / 3) * 4;
            if (!base64)
              return { text: `${about} (not shown; read with base64: true, or inspect it with exec)` };
            if (encodedChars > maxOutputChars)
              return {
                text: `${about}: ${encodedChars} characters of base64 exceed the ${maxOutputChars} cap; use exec`,
              };
            return { text: toBase64(await readRest(value, reader)) };
          }
        }
        partial += decoder.decode(value, { stream: true });
        const lines = partial.split("\n");
        partial = lines.pop() ?? "";
        for (const l of lines) {
          if (line >= first && line <= last)
            out += numbered ? `${String(line).padStart(6)}\t${l}\n` : `${l}\n`;
          line++;
        }
        if (line > last || out.length > maxOutputChars * 2) break;
      }
      if (partial !== "" && line >= first && line <= last)
        out += numbered ? `${String(line).padStart(6)}\t${partial}` : partial;
    } finally {
      await reader.cancel().catch(() => {});
    }
    text = out;
    if (text.length > maxOutputChars) {
      const shown = text.slice(0, maxOutputChars);
      const lines = shown.split("\n").length;
      return {
        text: `${shown}\n[... cut at ${maxOutputChars} characters of ${file.size} bytes; read on with offset=${first + lines - 1} ...]`,
      };
    }
    return { text: text === "" && numbered ? `(no lines at ${first}; the file has ${line - 1})` : text };
  },
});

/** `first` and the rest of `reader`'s bytes, as one array. */
async function readRest(
  first: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<Uint8Array> {
  const parts = [first];
  let size = first.length;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** `ls {path?, depth?}`. */
export const lsTool = defineTool<{ path?: string; depth?: number }>({
  name: "ls",
  description:
    "List a directory of the computer (relative to /workspace; default the root), with each entry's type and " +
    "size. depth > 1 lists subdirectories too, indented.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Directory relative to /workspace (default: the root)" },
      depth: { type: "integer", minimum: 1, maximum: 10, description: "Levels to list (default 1)" },
    },
    additionalProperties: false,
  },
  readOnly: true,
  async run({ computer, maxOutputChars, signal }, { path, depth }) {
    const lines: string[] = [];
    let chars = 0;
    const walk = async (dir: string, level: number): Promise<boolean> => {
      for await (const entry of computer.files.entries(dir, { signal })) {
        const line = `${"  ".repeat(level)}${entry.name}${entry.type === "dir" ? "/" : ""}  ${entry.type === "file" ? `${entry.size} bytes` : entry.type}`;
        chars += line.length + 1;
        if (chars > maxOutputChars) {
          lines.push(`[... more entries not shown: list a subdirectory or lower depth ...]`);
          return false;
        }
        lines.push(line);
        if (entry.type === "dir" && level + 1 < (depth ?? 1)) {
          if (!(await walk(dir === "" ? entry.name : `${dir}/${entry.name}`, level + 1))) return false;
        }
      }
      return true;
    };
    await walk(apiPath(path), 0);
    return { text: lines.length === 0 ? "(empty directory)" : lines.join("\n") };
  },
});

/** `find {path?, pattern, type?, limit?}`. */
export const findTool = defineTool<{ path?: string; pattern: string; type?: "file" | "dir"; limit?: number }>(
  {
    name: "find",
    description:
      "Find paths under a directory whose path relative to it matches a glob: `*` and `?` stay within one " +
      "segment, `**` spans directories (e.g. **/*.test.ts). type keeps only files or only directories.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Directory to search (default: the root)" },
        pattern: { type: "string", minLength: 1, description: "Glob, e.g. **/*.ts" },
        type: { enum: ["file", "dir"], description: "Only files or only directories" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 10000,
          description: "Most paths to answer (default 200)",
        },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    readOnly: true,
    async run({ computer, maxOutputChars, signal }, { path, pattern, type, limit }) {
      const max = limit ?? 200;
      const found = await computer.files.find(apiPath(path), pattern, {
        signal,
        limit: type ? 100_000 : max,
      });
      let paths = found;
      if (type !== undefined) {
        const kept: string[] = [];
        for (const p of found) {
          if (kept.length >= max) break;
          const stat = await computer.files.stat(p, { follow: false, signal });
          if (stat.type === type) kept.push(p);
        }
        paths = kept;
      }
      const text = paths
        .slice(0, max)
        .map((p) => p.replace(/^\//, ""))
        .join("\n");
      return {
        text:
          text === "" ? "(no matches)" : capText(text, maxOutputChars, "narrow the pattern or lower limit"),
      };
    },
  },
);

/** `grep {pattern, path?, glob?, context?, limit?}`. */
export const grepTool = defineTool<{
  pattern: string;
  path?: string;
  glob?: string;
  context?: number;
  limit?: number;
}>({
  name: "grep",
  description:
    "Search file contents with a JavaScript regular expression, on the computer's own index (not file by file). " +
    "Answers path:line:text for each match; glob limits the files (relative to path), context adds lines around.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "Regular expression, e.g. function \\w+Test" },
      path: { type: "string", description: "File or directory to search (default: the root)" },
      glob: { type: "string", description: "Only files matching this glob, e.g. **/*.ts" },
      context: { type: "integer", minimum: 0, maximum: 20, description: "Lines of context before and after" },
      limit: { type: "integer", minimum: 1, maximum: 10000, description: "Most matches (default 100)" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  readOnly: true,
  async run({ computer, maxOutputChars, signal }, { pattern, path, glob, context, limit }) {
    try {
      new RegExp(pattern);
    } catch {
      throw new ToolError("EINVAL", `invalid regular expression: ${pattern}`);
    }
    const matches = await computer.files.grep(apiPath(path), pattern, {
      signal,
      regex: true,
      limit: limit ?? 100,
      ...(context === undefined ? {} : { context }),
      ...(glob === undefined ? {} : { glob }),
    });
    const lines = matches.flatMap((m) => {
      const file = m.path.replace(/^\//, "");
      const before = m.before.map((t, i) => `${file}-${m.line - m.before.length + i}-${t}`);
      const after = m.after.map((t, i) => `${file}-${m.line + 1 + i}-${t}`);
      return [...before, `${file}:${m.line}:${m.text}`, ...after, ...(context ? ["--"] : [])];
    });
    const text = lines.join("\n");
    return {
      text: text === "" ? "(no matches)" : capText(text, maxOutputChars, "narrow the pattern, path or glob"),
    };
  },
});
