/**
 * The web console's bundles (console/scripts/build-console.ts writes dist/console/*), imported as
 * text by wrangler's `*.console.*` Text rule and served at /console.
 */
declare module "*.console.js" {
  const source: string;
  // biome-ignore lint/style/noDefaultExport: a text module's only export is its default.
  export default source;
}
declare module "*.console.css" {
  const source: string;
  // biome-ignore lint/style/noDefaultExport: a text module's only export is its default.
  export default source;
}
declare module "*.console.html" {
  const source: string;
  // biome-ignore lint/style/noDefaultExport: a text module's only export is its default.
  export default source;
}
