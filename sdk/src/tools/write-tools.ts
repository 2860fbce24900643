/**
 * The writing tools: `write` (create or replace a file, parents created; readers see the old or
 * the new file, never a mix) and `edit` (exact replacements applied atomically: the file is
 * rewritten only if it is still the version the edits were computed on; answers a diff).
 */
import { isComputerError } from "../error.ts";
import { applyEdits, type Edit, unifiedDiff } from "./edits.ts";
import { apiPath, capText, defineTool, ToolError, workspacePath } from "./tool.ts";

/** Attempts of an edit whose file changed under it (each re-reads and re-applies). */
const EDIT_ATTEMPTS = 20;

/** A short random pause before another attempt, so racing editors do not collide in step. */
function jitter(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * Math.min(attempt, 5)));
}

/** `write {path, content}`. */
export const writeTool = defineTool<{ path: string; content: string }>({
  name: "write",
  description:
    "Create or replace a text file of the computer with content (paths relative to /workspace; missing " +
    "parent directories are created). The replacement is atomic: readers see the old or the new file.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path relative to /workspace" },
      content: { type: "string", description: "The whole new content of the file" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  readOnly: false,
  async run({ computer, signal }, { path, content }) {
    const written = await computer.files.write(apiPath(path), content, { signal });
    return { text: `wrote ${written.size} bytes to ${workspacePath(path)}` };
  },
});

/** `edit {path, edits: [{old, new, replaceAll?}]}`. */
export const editTool = defineTool<{ path: string; edits: Edit[] }>({
  name: "edit",
  description:
    "Edit a text file with exact replacements, applied in order and atomically: each old must match exactly " +
    "once (set replaceAll to replace every match); if any edit does not apply, nothing changes. If the file " +
    "changes while the edit runs, the edit is computed again on the new version or fails. Answers a unified diff.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path relative to /workspace" },
      edits: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          properties: {
            old: {
              type: "string",
              minLength: 1,
              description: "Exact text to replace (include enough context)",
            },
            new: { type: "string", description: "Replacement text" },
            replaceAll: { type: "boolean", description: "Replace every match instead of exactly one" },
          },
          required: ["old", "new"],
          additionalProperties: false,
        },
      },
    },
    required: ["path", "edits"],
    additionalProperties: false,
  },
  readOnly: false,
  async run({ computer, maxOutputChars, signal }, { path, edits }) {
    const target = apiPath(path);
    for (let attempt = 1; ; attempt++) {
      const file = await computer.files.open(target, { signal });
      const before = await new Response(file.body).text();
      if (file.etag === undefined) throw new ToolError("EIO", "the file has no version tag to edit against");
      const after = applyEdits(before, edits);
      try {
        await computer.files.write(target, after, { signal, ifMatch: file.etag });
      } catch (err) {
        // Someone wrote the file between our read and our write: compute the edit again on theirs.
        if (isComputerError(err) && err.code === "ESTALE" && attempt < EDIT_ATTEMPTS) {
          await jitter(attempt);
          continue;
        }
        throw err;
      }
      const diff = unifiedDiff(workspacePath(path), before, after);
      return {
        text: capText(diff === "" ? "(no change)" : diff, maxOutputChars, "read the file for the rest"),
      };
    }
  },
});
