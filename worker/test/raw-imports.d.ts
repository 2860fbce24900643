/** Text files imported with Vite's `?raw` suffix (docs/API.md in error-codes.test.ts). */
declare module "*?raw" {
  const text: string;
  // biome-ignore lint/style/noDefaultExport: Vite's ?raw imports have only a default export.
  export default text;
}
