/**
 * The guest bundles built by scripts/build-guests.ts (dist/guests/*.guest.js) are imported as
 * text by wrangler's `*.guest.js` Text rule: their source goes to the Worker Loader.
 */
declare module "*.guest.js" {
  const source: string;
  // biome-ignore lint/style/noDefaultExport: a text module's only export is its default.
  export default source;
}
