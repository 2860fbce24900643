/**
 * The pure part of the `edit` tool: exact `old → new` replacements applied in order to a text,
 * each `old` required to match exactly once (or at least once with `replaceAll`), and the
 * unified diff of the result. A failing edit names itself and changes nothing.
 */
import { createTwoFilesPatch } from "diff";
import { ToolError } from "./tool.ts";

/** One replacement. */
export interface Edit {
  old: string;
  new: string;
  replaceAll?: boolean;
}

function count(text: string, part: string): number {
  let n = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) n++;
  return n;
}

/** `text` with every edit applied in order; throws ToolError EINVAL when one does not apply. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let result = text;
  for (const [i, edit] of edits.entries()) {
    const which = `edit ${i + 1} of ${edits.length}`;
    if (edit.old === "") throw new ToolError("EINVAL", `${which}: old is empty`);
    const found = count(result, edit.old);
    if (found === 0) throw new ToolError("EINVAL", `${which}: old text not found (nothing was changed)`);
    if (found > 1 && !edit.replaceAll) {
      throw new ToolError(
        "EINVAL",
        `${which}: old text matches ${found} times; add context to make it unique or set replaceAll (nothing was changed)`,
      );
    }
    result = edit.replaceAll
      ? result.split(edit.old).join(edit.new)
      : result.replace(edit.old, () => edit.new);
  }
  return result;
}

/** The unified diff from `before` to `after` of `path`. */
export function unifiedDiff(path: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, "", "", { context: 3 })
    .split("\n")
    .slice(1)
    .join("\n")
    .replace(/^(---|\+\+\+) (.*)\t$/gm, "$1 $2");
}
