/**
 * turndown (no types of its own): as far as src/guest/turndown-guest.ts calls it. The build
 * resolves it to turndown's Node build (scripts/turndown-node-build.ts).
 */
declare module "turndown" {
  // biome-ignore lint/style/noDefaultExport: turndown's only export is its default.
  export default class TurndownService {
    constructor(options?: Record<string, string>);
    /** Drops these tags with their content. */
    remove(tags: string[]): this;
    turndown(html: string): string;
  }
}
