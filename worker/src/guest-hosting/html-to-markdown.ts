/**
 * The shell's `html-to-markdown` conversion, run in the DO's isolate for the guest
 * (GuestServicesApi.htmlToMarkdown): just-bash's command in the guest reads the input and
 * checks its options and limits (src/guest/host-turndown.ts), and turndown runs here, once
 * compiled per Worker isolate instead of in every new shell isolate (docs/BENCH.md,
 * "html-to-markdown in the DO"). turndown and domino are evaluated at the first conversion,
 * not at the Worker's start. The request comes from a guest: everything in it is checked.
 */
import type { GuestCallResult, HtmlToMarkdownRequest } from "./guest-wire.ts";

type Turndown = typeof import("../../dist/host/turndown.host.js").default;

/**
 * The largest input the DO converts, in UTF-16 code units: what just-bash's command lets
 * through under the shell's limits (its prospective output, 4 × the input, within the 64 MiB
 * output cap).
 */
export const HTML_MAX_LENGTH = 16 * 1024 * 1024;
/** The largest Markdown the DO returns, in UTF-8 bytes (the shell's output cap). */
export const MARKDOWN_MAX_BYTES = 64 * 1024 * 1024;
/** Tags the conversion may drop (just-bash drops three). */
const MAX_REMOVED_TAGS = 64;

/** turndown's options the command sets, and the values each may take (undefined: any string). */
const OPTIONS: Record<string, readonly string[] | undefined> = {
  bulletListMarker: ["-", "+", "*"],
  codeBlockStyle: ["fenced", "indented"],
  fence: ["```", "~~~"],
  headingStyle: ["atx", "setext"],
  hr: undefined,
};

let turndown: Promise<Turndown> | undefined;

function loadTurndown(): Promise<Turndown> {
  turndown ??= import("../../dist/host/turndown.host.js").then((module) => module.default);
  return turndown;
}

function invalid(message: string): GuestCallResult {
  return { ok: false, error: { code: "EINVAL", message } };
}

/** The options as turndown takes them, or why they are refused. */
function checkedOptions(options: unknown): Record<string, string> | string {
  if (typeof options !== "object" || options === null) return "options must be an object";
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (!Object.hasOwn(OPTIONS, name)) return `no option '${name}'`;
    const allowed = OPTIONS[name];
    if (typeof value !== "string" || (allowed !== undefined && !allowed.includes(value)))
      return `bad value for option '${name}'`;
    out[name] = value;
  }
  return out;
}

function checkedTags(tags: unknown): string[] | undefined {
  if (!Array.isArray(tags) || tags.length > MAX_REMOVED_TAGS) return undefined;
  return tags.every((tag) => typeof tag === "string" && /^[a-z][a-z0-9-]*$/i.test(tag)) ? tags : undefined;
}

/** Converts one request: the Markdown, trimmed, or an error with its code. */
export async function htmlToMarkdown(request: HtmlToMarkdownRequest): Promise<GuestCallResult> {
  const { html, maxOutputBytes } = request ?? {};
  if (typeof html !== "string") return invalid("html must be a string");
  if (html.length > HTML_MAX_LENGTH)
    return {
      ok: false,
      error: { code: "E2BIG", message: `input larger than ${HTML_MAX_LENGTH} characters` },
    };
  if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 1) return invalid("bad maxOutputBytes");
  const options = checkedOptions(request.options);
  if (typeof options === "string") return invalid(options);
  const remove = checkedTags(request.remove);
  if (remove === undefined) return invalid("remove must be a list of tag names");
  const Converter = await loadTurndown();
  let markdown: string;
  try {
    markdown = new Converter(options).remove(remove).turndown(html).trim();
  } catch (err) {
    return { ok: false, error: { code: "EIO", message: err instanceof Error ? err.message : String(err) } };
  }
  const limit = Math.min(maxOutputBytes, MARKDOWN_MAX_BYTES);
  // The guest adds a newline: as just-bash, the output with it must fit. A UTF-16 code unit is
  // 1–3 UTF-8 bytes: encode only where the length alone does not decide.
  const bytes = markdown.length * 3 < limit ? markdown.length : new TextEncoder().encode(markdown).byteLength;
  if (bytes + 1 > limit)
    return { ok: false, error: { code: "EFBIG", message: `output larger than ${limit} bytes` } };
  return { ok: true, value: markdown };
}
