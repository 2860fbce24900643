/**
 * What just-bash's html-to-markdown gets for its `turndown` import in the shell guest
 * (scripts/lazy-guest-modules.ts points it here): a converter that converts nothing and records
 * what it was asked, so that the DO has it converted instead (shell-commands.ts runs just-bash's
 * own command, then hands the recorded conversion to `services.htmlToMarkdown`). turndown and
 * the DOM it parses with (domino, ~250 KB) are then no part of the shell bundle, which V8
 * compiles whole in every new shell isolate, a new computer's first shell exec included: 5–11 ms
 * of CPU each (docs/BENCH.md, "html-to-markdown in the DO").
 *
 * just-bash's command keeps everything else: its options, reading stdin or the file, its errors
 * and its input limits. It calls the converter synchronously (`new TurndownService(options)`,
 * `remove(tags)`, `turndown(html)`), so the conversion is recorded in the async context of the
 * shell command that runs it (`recordConversions`), not in a variable another exec of this
 * isolate could overwrite meanwhile.
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import type { HtmlToMarkdownOptions, HtmlToMarkdownRequest } from "../guest-hosting/guest-wire.ts";

/** What one run of just-bash's command asked of its converter. */
export interface RecordedConversion {
  request?: Omit<HtmlToMarkdownRequest, "maxOutputBytes">;
}

let slots: AsyncLocalStorage<RecordedConversion> | undefined;

/**
 * Made at the first html-to-markdown, not at the guest's start: node:async_hooks is a Node
 * compatibility module workerd would otherwise load into every new shell isolate.
 */
function conversionSlots(): AsyncLocalStorage<RecordedConversion> {
  slots ??= new (process.getBuiltinModule("node:async_hooks").AsyncLocalStorage)<RecordedConversion>();
  return slots;
}

/** Runs `command` (just-bash's html-to-markdown) with what its converter is asked recorded in `into`. */
export function recordConversions<T>(into: RecordedConversion, command: () => Promise<T>): Promise<T> {
  return conversionSlots().run(into, command);
}

/** Stands in for turndown's default export (TurndownService) inside just-bash's command. */
// biome-ignore lint/style/noDefaultExport: just-bash imports turndown's default export.
export default class RecordingTurndown {
  readonly #options: HtmlToMarkdownOptions;
  readonly #remove: string[] = [];

  constructor(options: HtmlToMarkdownOptions) {
    this.#options = { ...options };
  }

  remove(tags: string | string[]): this {
    this.#remove.push(...(Array.isArray(tags) ? tags : [tags]));
    return this;
  }

  /** Records the conversion; the Markdown comes from the DO afterwards. */
  turndown(html: string): string {
    const slot = slots?.getStore();
    // Only shell-commands.ts's html-to-markdown runs just-bash's command; never a silent no-op.
    if (slot === undefined) throw new Error("the converter runs only inside the shell's html-to-markdown");
    slot.request = { html, options: this.#options, remove: [...this.#remove] };
    return "";
  }
}
