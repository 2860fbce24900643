/**
 * The HTML index a directory link shows when the directory has no index.html: its files and
 * subdirectories from the manifest, as relative links (so they keep the link's signature).
 */
import type { Manifest } from "./manifest.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One entry directly under a directory. */
export interface IndexEntry {
  name: string;
  /** Undefined for a subdirectory. */
  size: number | undefined;
}

/** The files and subdirectories directly under `dir` ("" or "a/b/"), in name order. */
export function entriesUnder(manifest: Manifest, dir: string): IndexEntry[] {
  const dirs = new Set<string>();
  const entries: IndexEntry[] = [];
  for (const file of manifest.files) {
    if (!file.path.startsWith(dir)) continue;
    const rest = file.path.slice(dir.length);
    const slash = rest.indexOf("/");
    if (slash < 0) entries.push({ name: rest, size: file.size });
    else dirs.add(rest.slice(0, slash));
  }
  for (const name of dirs) entries.push({ name, size: undefined });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The index page of `dir` in `manifest`. */
export function indexPage(manifest: Manifest, dir: string, entries: IndexEntry[]): string {
  const title = escapeHtml(`${manifest.name}@${manifest.version}/${dir}`);
  const rows = entries
    .map((e) => {
      const href = encodeURIComponent(e.name) + (e.size === undefined ? "/" : "");
      const label = escapeHtml(e.name) + (e.size === undefined ? "/" : "");
      const size = e.size === undefined ? "" : String(e.size);
      return `<tr><td><a href="${href}">${label}</a></td><td>${size}</td></tr>`;
    })
    .join("\n");
  const up = dir === "" ? "" : `<tr><td><a href="../">../</a></td><td></td></tr>\n`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1>
<table>
${up}${rows}
</table>
</body></html>
`;
}
