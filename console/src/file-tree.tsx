/** The file tree panel: folders fold and unfold, a click on a file opens it in the viewer. */
import { useState } from "preact/hooks";
import { formatBytes } from "./format.ts";
import type { LiveTree, TreeEntry } from "./live-tree.ts";

function Node({
  entry,
  tree,
  depth,
  selected,
  open,
  toggle,
  onSelect,
}: {
  entry: TreeEntry;
  tree: LiveTree;
  depth: number;
  selected: string | undefined;
  open: Set<string>;
  toggle: (path: string) => void;
  onSelect: (entry: TreeEntry) => void;
}) {
  const isDir = entry.type === "dir";
  const expanded = isDir && open.has(entry.path);
  return (
    <li>
      <button
        type="button"
        class={`tree-row ${selected === entry.path ? "selected" : ""}`}
        style={{ paddingLeft: `${8 + depth * 14}px` }}
        title={entry.path}
        data-path={entry.path}
        onClick={() => (isDir ? toggle(entry.path) : onSelect(entry))}
      >
        <span
          class={`icon ${isDir ? (expanded ? "dir-open" : "dir") : entry.type === "symlink" ? "link" : "file"}`}
        />
        <span class="tree-name">{entry.name}</span>
        {!isDir && <span class="tree-size">{formatBytes(entry.size)}</span>}
      </button>
      {expanded && (
        <ul>
          {tree.children(entry.path).map((child) => (
            <Node
              key={child.path}
              entry={child}
              tree={tree}
              depth={depth + 1}
              selected={selected}
              open={open}
              toggle={toggle}
              onSelect={onSelect}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

export function FileTree({
  tree,
  selected,
  onSelect,
}: {
  tree: LiveTree;
  selected: string | undefined;
  onSelect: (entry: TreeEntry) => void;
}) {
  const [open, setOpen] = useState(() => new Set<string>());
  const toggle = (path: string) => {
    const next = new Set(open);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    setOpen(next);
  };
  const top = tree.children("/");
  return (
    <div class="tree" data-testid="file-tree">
      <div class="panel-title">
        <span>Files</span>
        <span class={`live ${tree.ready ? "on" : ""}`} title="updated live from the change feed">
          {tree.ready ? "live" : "loading"}
        </span>
      </div>
      {tree.error !== undefined && <p class="error small">{tree.error}</p>}
      {tree.ready && top.length === 0 && <p class="muted small pad">The workspace is empty.</p>}
      <ul class="tree-root">
        {top.map((entry) => (
          <Node
            key={entry.path}
            entry={entry}
            tree={tree}
            depth={0}
            selected={selected}
            open={open}
            toggle={toggle}
            onSelect={onSelect}
          />
        ))}
      </ul>
    </div>
  );
}
