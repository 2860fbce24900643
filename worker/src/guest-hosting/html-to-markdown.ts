/**
 * The shell's `html-to-markdown` conversion, asked of the DO by the shell guest
 * (GuestServicesApi.htmlToMarkdown): just-bash's command in the guest reads the input and
 * checks its options and limits (src/guest/host-turndown.ts); the DO checks the request (it
 * comes from a guest) and has turndown convert it in the converter's Dynamic Worker
 * (src/guest/turndown-guest.ts), which a computer loads at its first conversion. So turndown and
 * domino are compiled neither in every new shell isolate nor at the Worker's own start, where
 * workerd compiles every module of the isolate, imported or not (docs/BENCH.md,
 * "html-to-markdown in the DO").
 */
import type { TurndownGuest } from "../guest/turndown-guest.ts";
import {
  GUEST_COMPATIBILITY_DATE,
  GUEST_COMPATIBILITY_FLAGS,
  TURNDOWN_GUEST,
  turndownGuestVersion,
} from "./guest-code.ts";
import type { GuestCallResult, HtmlToMarkdownRequest } from "./guest-wire.ts";

/** The converter as the DO calls it (TurndownGuestEntrypoint over RPC). */
export interface Converter {
  convert(html: string, options: Record<string, string>, remove: string[]): Promise<string>;
}

/** CPU one conversion may use. */
const CONVERT_CPU_MS = 30_000;

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

/**
 * The converter's Dynamic Worker of the computer whose shell runs under loader id `shellId`
 * (its kept shell isolate, shell-runtime.ts): a computer's conversions share one, cached by the
 * loader while in use, and never another computer's (the id is random per computer and goes
 * with it). Without a shell id (a js exec), a fresh one per call.
 */
export function turndownConverter(loader: WorkerLoader, shellId: string | undefined): Converter {
  const code = (): WorkerLoaderWorkerCode => ({
    compatibilityDate: GUEST_COMPATIBILITY_DATE,
    compatibilityFlags: GUEST_COMPATIBILITY_FLAGS,
    mainModule: "turndown.js",
    modules: { "turndown.js": TURNDOWN_GUEST },
    globalOutbound: null,
  });
  const worker =
    shellId === undefined
      ? loader.load(code())
      : loader.get(`turndown:${turndownGuestVersion()}:${shellId}`, code);
  return worker.getEntrypoint<TurndownGuest>("TurndownGuest", {
    limits: { cpuMs: CONVERT_CPU_MS },
  }) as Converter;
}

/** Converts one request with `converter`: the Markdown, trimmed, or an error with its code. */
export async function htmlToMarkdown(
  request: HtmlToMarkdownRequest,
  converter: () => Converter,
): Promise<GuestCallResult> {
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
  let markdown: string;
  try {
    markdown = await converter().convert(html, options, remove);
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
