/**
 * The file viewer: text with syntax highlighting (highlight.js, language from the name or
 * guessed), images and PDFs from a Blob URL, and a download link. Large text is cut at 1 MiB.
 * It reloads when the live tree reports a new mtime or size for the file.
 */
import type { Computer } from "@computer/sdk";
import hljs from "highlight.js/lib/common";
import { useEffect, useState } from "preact/hooks";
import { formatBytes, mimeOf, viewKind } from "./format.ts";
import type { TreeEntry } from "./live-tree.ts";
import { describeError } from "./session.ts";

const TEXT_LIMIT = 1024 * 1024;

type Loaded =
  | { kind: "text"; html: string; language: string; cut: boolean }
  | { kind: "image" | "pdf"; url: string }
  | { kind: "binary" };

function languageOf(path: string): string | undefined {
  const ext = (/\.([a-z0-9]+)$/i.exec(path)?.[1] ?? "").toLowerCase();
  const aliases: Record<string, string> = {
    mjs: "javascript",
    cjs: "javascript",
    jsonc: "json",
    yml: "yaml",
    sh: "bash",
  };
  const name = aliases[ext] ?? ext;
  return name !== "" && hljs.getLanguage(name) ? name : undefined;
}

function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 4096);
  return sample.includes(0);
}

export function FileViewer({ computer, entry }: { computer: Computer; entry: TreeEntry | undefined }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [download, setDownload] = useState<string | undefined>();
  useEffect(() => {
    setLoaded(undefined);
    setError(undefined);
    if (entry === undefined) return;
    let url: string | undefined;
    let cancelled = false;
    (async () => {
      try {
        const bytes = await computer.files.read(entry.path.slice(1));
        if (cancelled) return;
        const kind = viewKind(entry.path);
        url = URL.createObjectURL(
          new Blob([new Uint8Array(bytes)], {
            type: kind === "text" ? "application/octet-stream" : mimeOf(entry.path),
          }),
        );
        setDownload(url);
        if (kind !== "text") return setLoaded({ kind, url });
        if (looksBinary(bytes)) return setLoaded({ kind: "binary" });
        const cut = bytes.byteLength > TEXT_LIMIT;
        const text = new TextDecoder().decode(cut ? bytes.subarray(0, TEXT_LIMIT) : bytes);
        const language = languageOf(entry.path);
        const result = language ? hljs.highlight(text, { language }) : hljs.highlightAuto(text);
        setLoaded({ kind: "text", html: result.value, language: result.language ?? "text", cut });
      } catch (err) {
        if (!cancelled) setError(describeError(err));
      }
    })();
    return () => {
      cancelled = true;
      if (url !== undefined) URL.revokeObjectURL(url);
    };
  }, [computer, entry?.path, entry?.mtime, entry?.size]);

  if (entry === undefined) {
    return (
      <div class="placeholder">
        <div class="placeholder-art" aria-hidden="true" />
        <p>Pick a file in the tree to view it.</p>
        <p class="muted small">
          The tree follows the computer live: what a command, a terminal or the API writes shows up as it
          happens.
        </p>
      </div>
    );
  }
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  return (
    <div class="viewer" data-testid="viewer">
      <div class="viewer-head">
        <code class="path">{entry.path}</code>
        <span class="muted small">
          {formatBytes(entry.size)}
          {loaded?.kind === "text" ? ` · ${loaded.language}` : ""}
        </span>
        <div class="spacer" />
        {download !== undefined && (
          <a class="button secondary" href={download} download={name}>
            Download
          </a>
        )}
      </div>
      {error !== undefined && <p class="error">{error}</p>}
      {loaded === undefined && error === undefined && <p class="muted pad">Loading…</p>}
      {loaded?.kind === "text" && (
        <pre class="code hljs">
          {/* highlight.js escapes the text it highlights. */}
          <code dangerouslySetInnerHTML={{ __html: loaded.html }} />
          {loaded.cut && (
            <div class="muted small">… cut at {formatBytes(TEXT_LIMIT)}; download for the rest.</div>
          )}
        </pre>
      )}
      {loaded?.kind === "image" && (
        <div class="media">
          <img src={loaded.url} alt={name} />
        </div>
      )}
      {loaded?.kind === "pdf" && <iframe class="pdf" src={loaded.url} title={name} />}
      {loaded?.kind === "binary" && <p class="muted pad">A binary file: download it to open it.</p>}
    </div>
  );
}
