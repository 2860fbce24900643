/**
 * The terminal panel: xterm.js over the terminal WebSocket (docs/API.md "Terminals"). Opens a
 * terminal in the container (a real pty) or the shell runtime, sends keystrokes as binary
 * frames and window sizes as `resize` messages, and re-attaches to a terminal that is still
 * running (the server replays its scrollback) after the connection dropped or the page reloaded.
 */
import type { Computer, TerminalInfo } from "@computer/sdk";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef, useState } from "preact/hooks";
import { Segmented } from "./segmented.tsx";
import type { Session } from "./session.ts";
import { describeError } from "./session.ts";

const encoder = new TextEncoder();

export function TerminalPanel({
  session,
  computer,
  visible,
  writable,
}: {
  session: Session;
  computer: Computer;
  visible: boolean;
  writable: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | undefined>(undefined);
  const fit = useRef<FitAddon | undefined>(undefined);
  const socket = useRef<WebSocket | undefined>(undefined);
  const [runtime, setRuntime] = useState<"container" | "shell">("container");
  const [active, setActive] = useState<TerminalInfo | undefined>();
  const [state, setState] = useState<"idle" | "connecting" | "connected" | "closed">("idle");
  const [others, setOthers] = useState<TerminalInfo[]>([]);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    const t = new Terminal({
      cursorBlink: true,
      fontFamily: '"JetBrains Mono", "SFMono-Regular", Menlo, Consolas, monospace',
      fontSize: 13,
      theme: {
        background: "#0b1020",
        foreground: "#e2e8f0",
        cursor: "#a5b4fc",
        selectionBackground: "#334155",
      },
    });
    const f = new FitAddon();
    t.loadAddon(f);
    if (host.current) t.open(host.current);
    term.current = t;
    fit.current = f;
    t.onData((data) => {
      const ws = socket.current;
      if (ws?.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
    });
    t.onResize(({ cols, rows }) => {
      const ws = socket.current;
      if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "resize", cols, rows }));
    });
    const onWindow = () => fit.current?.fit();
    addEventListener("resize", onWindow);
    void list();
    return () => {
      removeEventListener("resize", onWindow);
      socket.current?.close();
      t.dispose();
    };
  }, [computer]);

  useEffect(() => {
    if (visible) {
      // Sized only once the panel is shown (a hidden element has no size).
      requestAnimationFrame(() => fit.current?.fit());
      term.current?.focus();
    }
  }, [visible]);

  const list = async () => {
    try {
      setOthers((await computer.terminals.list()).filter((t) => t.status === "running"));
    } catch (err) {
      setError(describeError(err));
    }
  };

  const attach = (info: TerminalInfo) => {
    const t = term.current;
    if (t === undefined) return;
    socket.current?.close();
    t.reset();
    setActive(info);
    setState("connecting");
    const ws = new WebSocket(computer.terminals.attachUrl(info.id), [
      "computer.terminal.v1",
      `bearer.${session.token}`,
    ]);
    ws.binaryType = "arraybuffer";
    socket.current = ws;
    ws.addEventListener("open", () => {
      if (socket.current !== ws) return;
      setState("connected");
      fit.current?.fit();
      ws.send(JSON.stringify({ type: "resize", cols: t.cols, rows: t.rows }));
      t.focus();
    });
    ws.addEventListener("message", (event) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data) as { type: string; exitCode?: number | null; signal?: string };
        if (message.type === "exit") {
          const how = message.signal ?? `exit ${message.exitCode}`;
          t.write(`\r\n\x1b[2m[terminal ended: ${how}]\x1b[0m\r\n`);
        }
        return;
      }
      t.write(new Uint8Array(event.data as ArrayBuffer));
    });
    ws.addEventListener("close", () => {
      if (socket.current !== ws) return;
      setState("closed");
      void list();
    });
  };

  const open = async () => {
    setError(undefined);
    const t = term.current;
    if (t === undefined) return;
    fit.current?.fit();
    try {
      const info = await computer.terminals.open({ runtime, cols: t.cols, rows: t.rows });
      attach(info);
      void list();
    } catch (err) {
      setError(describeError(err));
    }
  };

  const end = async () => {
    if (active === undefined) return;
    try {
      await computer.terminals.end(active.id);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <div class="terminal-panel">
      <div class="row toolbar">
        <Segmented
          options={["container", "shell"] as const}
          value={runtime}
          onChange={setRuntime}
          label="Terminal runtime"
        />
        <button
          type="button"
          class="primary"
          onClick={() => void open()}
          disabled={!writable}
          data-testid="open-terminal"
        >
          New terminal
        </button>
        {active !== undefined && state === "closed" && (
          <button type="button" class="secondary" onClick={() => attach(active)}>
            Re-attach
          </button>
        )}
        {active !== undefined && state === "connected" && (
          <button type="button" class="ghost" onClick={() => void end()}>
            End
          </button>
        )}
        <span class={`conn ${state}`} data-testid="terminal-state">
          {active === undefined ? "no terminal" : `${active.runtime} · ${state}`}
        </span>
        <div class="spacer" />
        {others
          .filter((o) => o.id !== active?.id)
          .map((o) => (
            <button
              type="button"
              class="ghost small"
              key={o.id}
              onClick={() => attach(o)}
              title={`Attach to ${o.id}`}
            >
              {o.runtime} {o.id.slice(3, 9)}
            </button>
          ))}
      </div>
      {error !== undefined && <p class="error">{error}</p>}
      <div class="xterm-host" ref={host} data-testid="terminal" />
    </div>
  );
}
