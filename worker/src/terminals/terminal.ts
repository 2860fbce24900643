/**
 * One terminal in a Computer DO: its backend (a pty in the container, or the line-edited
 * shell), its scrollback and the WebSockets watching it. It outlives its viewers: a viewer
 * that attaches gets the scrollback, then live output; with no viewer for `idleMs` it closes.
 *
 * WebSocket protocol: binary frames carry terminal bytes both ways; text frames are JSON
 * control messages: from the viewer `{"type":"resize","cols","rows"}` (and `{"type":"input",
 * "data"}` for text input), to the viewer `{"type":"exit","exitCode","signal"?}` before the
 * socket closes and `{"type":"error","code","message"}` for a bad message.
 */
import type { TerminalInfo } from "@computer/sdk/contract";
import { Scrollback } from "./scrollback.ts";

/** The runtimes a terminal can run in. */
export type TerminalRuntime = TerminalInfo["runtime"];

/** What a backend tells its terminal. */
export interface TerminalEvents {
  output(data: Uint8Array): void;
  exit(exitCode: number | null, signal?: string): void;
}

/** The running side of a terminal. */
export interface TerminalBackend {
  write(data: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** Ends the terminal; the backend reports `exit` once it has ended. */
  close(): void;
}

/** A terminal as the API lists it (the contract's TerminalInfo). */
export type TerminalJson = TerminalInfo;

const encoder = new TextEncoder();

function send(socket: WebSocket, message: string | Uint8Array): void {
  try {
    socket.send(message);
  } catch {
    // The viewer is gone; its close event detaches it.
  }
}

/** Parses one control message; throws a message for the viewer when it is not valid. */
function parseControl(
  text: string,
): { type: "resize"; cols: number; rows: number } | { type: "input"; data: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("control messages are JSON");
  }
  const message = value as { type?: unknown; cols?: unknown; rows?: unknown; data?: unknown };
  if (message?.type === "input" && typeof message.data === "string")
    return { type: "input", data: message.data };
  if (message?.type === "resize") {
    const { cols, rows } = message;
    if (typeof cols === "number" && typeof rows === "number" && validSize(cols) && validSize(rows))
      return { type: "resize", cols, rows };
    throw new Error("resize needs integer cols and rows 1..1000");
  }
  throw new Error('unknown control message (expected "resize" or "input")');
}

/** A terminal width or height: 1..1000. */
export function validSize(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 1000;
}

/** One terminal. */
export class Terminal {
  readonly id: string;
  readonly runtime: TerminalRuntime;
  readonly createdAt = new Date().toISOString();
  readonly scrollback = new Scrollback();
  readonly #sockets = new Set<WebSocket>();
  readonly #idleMs: number;
  readonly #onIdle: () => void;
  #backend: TerminalBackend | undefined;
  #cols: number;
  #rows: number;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #exit: { exitCode: number | null; signal?: string } | undefined;
  /** Settles once the backend has reported its end. */
  readonly ended: Promise<void>;
  #resolveEnded: () => void = () => undefined;

  constructor(
    id: string,
    runtime: TerminalRuntime,
    size: { cols: number; rows: number },
    idleMs: number,
    onIdle: () => void,
  ) {
    this.id = id;
    this.runtime = runtime;
    this.#cols = size.cols;
    this.#rows = size.rows;
    this.#idleMs = idleMs;
    this.#onIdle = onIdle;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    this.#armIdle();
  }

  /** The events its backend reports to. */
  readonly events: TerminalEvents = {
    output: (data) => {
      this.scrollback.push(data);
      for (const socket of this.#sockets) send(socket, data);
    },
    exit: (exitCode, signal) => {
      if (this.#exit !== undefined) return;
      this.#exit = signal === undefined ? { exitCode } : { exitCode, signal };
      clearTimeout(this.#idleTimer);
      const message = JSON.stringify({ type: "exit", ...this.#exit });
      for (const socket of this.#sockets) {
        send(socket, message);
        socket.close(1000, "exited");
      }
      this.#sockets.clear();
      this.#resolveEnded();
    },
  };

  /** Plugs in the started backend. */
  run(backend: TerminalBackend): void {
    this.#backend = backend;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Attaches a viewer: the scrollback first, then live output; an ended terminal says so and closes. */
  attach(socket: WebSocket): void {
    // Binary frames as ArrayBuffer, not Blob (the default of newer compatibility dates).
    socket.binaryType = "arraybuffer";
    socket.accept();
    if (this.scrollback.size > 0) send(socket, this.scrollback.bytes());
    if (this.#exit !== undefined) {
      send(socket, JSON.stringify({ type: "exit", ...this.#exit }));
      socket.close(1000, "exited");
      return;
    }
    this.#sockets.add(socket);
    clearTimeout(this.#idleTimer);
    socket.addEventListener("message", (event) => this.#message(socket, event.data));
    const detach = () => {
      if (this.#sockets.delete(socket)) this.#armIdle();
    };
    socket.addEventListener("close", detach);
    socket.addEventListener("error", detach);
  }

  #message(socket: WebSocket, data: string | ArrayBuffer): void {
    if (this.#backend === undefined || this.#exit !== undefined) return;
    if (typeof data !== "string") {
      this.#backend.write(new Uint8Array(data));
      return;
    }
    try {
      const control = parseControl(data);
      if (control.type === "input") this.#backend.write(encoder.encode(control.data));
      else this.resize(control.cols, control.rows);
    } catch (err) {
      send(socket, JSON.stringify({ type: "error", code: "EINVAL", message: (err as Error).message }));
    }
  }

  resize(cols: number, rows: number): void {
    this.#cols = cols;
    this.#rows = rows;
    this.#backend?.resize(cols, rows);
  }

  /** Ends the terminal (DELETE, idle, the computer going away). */
  close(): void {
    if (this.#exit !== undefined) return;
    if (this.#backend === undefined) this.events.exit(null, "SIGHUP");
    else this.#backend.close();
  }

  #armIdle(): void {
    clearTimeout(this.#idleTimer);
    if (this.#exit !== undefined || this.#sockets.size > 0) return;
    this.#idleTimer = setTimeout(() => this.#onIdle(), this.#idleMs);
  }

  json(): TerminalJson {
    const json: TerminalJson = {
      id: this.id,
      runtime: this.runtime,
      cols: this.#cols,
      rows: this.#rows,
      createdAt: this.createdAt,
      status: this.#exit === undefined ? "running" : "exited",
      exitCode: this.#exit?.exitCode ?? null,
      attached: this.#sockets.size,
    };
    if (this.#exit?.signal !== undefined) json.signal = this.#exit.signal;
    return json;
  }
}
