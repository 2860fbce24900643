/**
 * One computer: the live file tree with upload on the left; on the right the viewer of the
 * selected file and the exec, terminal, checkpoint and artifact panels. Panels stay mounted
 * when another tab is shown, so a terminal keeps its connection and an exec its output.
 */
import { useMemo, useRef, useState } from "preact/hooks";
import { ArtifactsPanel } from "./artifacts-panel.tsx";
import { CheckpointsPanel } from "./checkpoints-panel.tsx";
import { ExecPanel } from "./exec-panel.tsx";
import { FileTree } from "./file-tree.tsx";
import { FileViewer } from "./file-viewer.tsx";
import { type TreeEntry, useLiveTree } from "./live-tree.ts";
import { describeError, type Session } from "./session.ts";
import { TerminalPanel } from "./terminal-panel.tsx";

const TABS = ["Files", "Exec", "Terminal", "Checkpoints", "Artifacts"] as const;
type Tab = (typeof TABS)[number];

export function ComputerView({ session, id }: { session: Session; id: string }) {
  const computer = useMemo(() => session.client.computer(id), [session, id]);
  const tree = useLiveTree(computer);
  const [tab, setTab] = useState<Tab>("Files");
  const [selected, setSelected] = useState<TreeEntry | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const upload = useRef<HTMLInputElement>(null);
  const uploadDir = selected === undefined ? "" : selected.path.slice(1, selected.path.lastIndexOf("/"));
  const onFiles = async (files: FileList | null) => {
    if (files === null) return;
    for (const file of Array.from(files)) {
      const path = uploadDir === "" ? file.name : `${uploadDir}/${file.name}`;
      try {
        await computer.files.write(path, file);
        setNotice(`Uploaded /${path}`);
      } catch (err) {
        setNotice(describeError(err));
      }
    }
    if (upload.current) upload.current.value = "";
  };
  const writable = session.scope !== "ro";
  return (
    <div class="computer">
      <aside class="sidebar card">
        <FileTree
          tree={tree}
          selected={selected?.path}
          onSelect={(entry) => {
            setSelected(entry);
            setTab("Files");
          }}
        />
        {writable && (
          <div class="sidebar-foot">
            <input
              ref={upload}
              type="file"
              multiple
              hidden
              data-testid="upload-input"
              onChange={(e) => void onFiles((e.target as HTMLInputElement).files)}
            />
            <button type="button" class="secondary wide" onClick={() => upload.current?.click()}>
              Upload to /{uploadDir}
            </button>
            {notice !== undefined && (
              <p class="muted small" data-testid="notice">
                {notice}
              </p>
            )}
          </div>
        )}
      </aside>
      <section class="main card">
        <div class="tabs" role="tablist">
          {TABS.map((name) => (
            <button
              type="button"
              role="tab"
              key={name}
              aria-selected={tab === name}
              class={`tab ${tab === name ? "active" : ""}`}
              onClick={() => setTab(name)}
            >
              {name}
            </button>
          ))}
          <div class="spacer" />
          <span class="muted small">{tree.size} paths</span>
        </div>
        <div class="tab-body" hidden={tab !== "Files"}>
          <FileViewer
            computer={computer}
            entry={selected === undefined ? undefined : (tree.get(selected.path) ?? selected)}
          />
        </div>
        <div class="tab-body" hidden={tab !== "Exec"}>
          <ExecPanel computer={computer} writable={writable} />
        </div>
        <div class="tab-body" hidden={tab !== "Terminal"}>
          <TerminalPanel
            session={session}
            computer={computer}
            visible={tab === "Terminal"}
            writable={writable}
          />
        </div>
        <div class="tab-body" hidden={tab !== "Checkpoints"}>
          <CheckpointsPanel computer={computer} writable={writable} />
        </div>
        <div class="tab-body" hidden={tab !== "Artifacts"}>
          <ArtifactsPanel session={session} computer={computer} writable={writable} />
        </div>
      </section>
    </div>
  );
}
