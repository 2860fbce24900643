/**
 * The exec panel: run a command in any runtime with its output live (SSE), the recent execs of
 * the computer (from every client, not only this page), and re-attach to one to replay its
 * output from the start and follow it while it runs; kill a running one.
 */
import type { Computer, ExecStream, ExecSummary, RuntimeName } from "@computer/sdk";
import { useEffect, useRef, useState } from "preact/hooks";
import { timeAgo } from "./format.ts";
import { Segmented } from "./segmented.tsx";
import { describeError } from "./session.ts";

interface Piece {
  stream: "stdout" | "stderr" | "info";
  text: string;
}

const PLACEHOLDER: Record<RuntimeName, string> = {
  container: "ls -la && uname -a",
  shell: "echo hello > hello.txt && cat hello.txt",
  js: 'import { readdir } from "node:fs/promises";\nexport default async () => readdir(".");',
};

export function ExecPanel({ computer, writable }: { computer: Computer; writable: boolean }) {
  const [runtime, setRuntime] = useState<RuntimeName>("container");
  const [source, setSource] = useState("");
  const [pieces, setPieces] = useState<Piece[]>([]);
  const [current, setCurrent] = useState<{ id: string; status: string } | undefined>();
  const [history, setHistory] = useState<ExecSummary[]>([]);
  const [error, setError] = useState<string | undefined>();
  const stream = useRef<ExecStream | undefined>(undefined);
  const output = useRef<HTMLPreElement>(null);

  const refresh = async () => {
    try {
      setHistory(await computer.exec.list({ limit: 25 }));
    } catch (err) {
      setError(describeError(err));
    }
  };
  useEffect(() => {
    void refresh();
    return () => void stream.current?.close();
  }, [computer]);
  useEffect(() => {
    output.current?.scrollTo({ top: output.current.scrollHeight });
  }, [pieces]);

  const follow = async (next: ExecStream) => {
    await stream.current?.close();
    stream.current = next;
    setCurrent({ id: next.id, status: "running" });
    try {
      for await (const event of next) {
        if (event.type === "exit") {
          const r = event.result;
          const how = r.exitCode === null ? r.status : `exit ${r.exitCode}`;
          setPieces((p) => [
            ...p,
            {
              stream: "info",
              text: `\n— ${how} in ${r.durationMs} ms${r.sync?.status === "complete" ? ", synced" : ""}\n`,
            },
          ]);
          setCurrent({ id: next.id, status: r.status });
        } else {
          const { type, data } = event;
          setPieces((p) => [...p, { stream: type, text: data }]);
        }
      }
    } catch (err) {
      setError(describeError(err));
    }
    void refresh();
  };

  const run = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setPieces([{ stream: "info", text: `$ ${source || PLACEHOLDER[runtime]}\n` }]);
    try {
      await follow(await computer.exec.stream({ runtime, source: source || PLACEHOLDER[runtime] }));
    } catch (err) {
      setError(describeError(err));
    }
  };

  const attach = async (summary: ExecSummary) => {
    setError(undefined);
    setPieces([{ stream: "info", text: `re-attached to ${summary.id} (${summary.runtime})\n` }]);
    try {
      await follow(await computer.exec.attach(summary.id));
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <div class="exec">
      <form class="exec-form" onSubmit={run}>
        <Segmented
          options={["container", "shell", "js"] as const}
          value={runtime}
          onChange={setRuntime}
          label="Runtime"
        />
        <textarea
          class="mono"
          rows={runtime === "js" ? 5 : 2}
          placeholder={PLACEHOLDER[runtime]}
          value={source}
          aria-label="Command"
          onInput={(e) => setSource((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) void run(e);
          }}
        />
        <div class="row">
          <button type="submit" class="primary" disabled={!writable}>
            Run
          </button>
          {current?.status === "running" && (
            <button type="button" class="danger" onClick={() => void computer.exec.kill(current.id)}>
              Kill
            </button>
          )}
          <span class="muted small">⌘/Ctrl + Enter runs</span>
        </div>
      </form>
      {error !== undefined && <p class="error">{error}</p>}
      <pre class="output mono" ref={output} data-testid="exec-output">
        {pieces.length === 0 ? (
          <span class="muted">Output appears here while the command runs.</span>
        ) : (
          pieces.map((p, i) => (
            <span key={i} class={p.stream}>
              {p.text}
            </span>
          ))
        )}
      </pre>
      <div class="panel-title">
        <span>History</span>
        <button type="button" class="ghost small" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <table class="table">
        <tbody>
          {history.map((h) => (
            <tr
              key={h.id}
              class={current?.id === h.id ? "selected" : ""}
              onClick={() => void attach(h)}
              title="Re-attach"
            >
              <td>
                <span class={`status ${h.status}`}>{h.status}</span>
              </td>
              <td class="mono small">{h.runtime}</td>
              <td class="mono small">{h.id}</td>
              <td class="small">{h.exitCode ?? ""}</td>
              <td class="muted small">{timeAgo(h.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
