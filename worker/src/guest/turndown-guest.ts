/**
 * The html-to-markdown converter's Dynamic Worker (entrypoint `TurndownGuest`): turndown's Node
 * build, which parses HTML with domino (scripts/turndown-node-build.ts). The DO loads it at a
 * computer's first conversion (src/guest-hosting/html-to-markdown.ts), so that turndown and
 * domino (~250 KB) are compiled neither in every new shell isolate nor at the Worker's own start
 * (workerd compiles every module of an isolate at its load: docs/BENCH.md, "html-to-markdown in
 * the DO"). It has no capabilities and no way out: HTML in, Markdown out.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import TurndownService from "turndown";
import type { TurndownGuestEntrypoint } from "../guest-hosting/guest-wire.ts";

/** The converter. */
export class TurndownGuest extends WorkerEntrypoint implements TurndownGuestEntrypoint {
  /** The Markdown of `html`, trimmed; throws what turndown throws. */
  convert(html: string, options: Record<string, string>, remove: string[]): string {
    return new TurndownService(options).remove(remove).turndown(html).trim();
  }
}
