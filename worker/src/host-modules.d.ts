/**
 * The Worker's own modules built by scripts/build-guests.ts into dist/host: turndown's Node
 * build with domino (turndown.host.js), which src/guest-hosting/html-to-markdown.ts imports at
 * the first conversion. Only what the Worker calls of it is typed.
 */
declare module "*/turndown.host.js" {
  /** turndown's converter (TurndownService). */
  // biome-ignore lint/style/noDefaultExport: turndown's only export is its default.
  export default class TurndownService {
    constructor(options?: Record<string, string>);
    /** Drops these tags with their content. */
    remove(tags: string[]): this;
    turndown(html: string): string;
  }
}
