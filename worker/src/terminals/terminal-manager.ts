/**
 * The terminals of one Computer DO (docs/API.md "Terminals"): create one in the container or
 * the shell runtime, list them, attach a WebSocket (the scrollback is replayed first), and
 * delete one (its shell is ended). A terminal with no viewer for its idle timeout closes; an
 * ended one is kept a few minutes so a viewer that re-attaches still sees how it ended.
 */

import { parseCwd, parseEnv } from "../exec/exec-request.ts";
import { ApiError } from "../http/errors.ts";
import { type JsonObject, optionalInteger, optionalString, requireInteger } from "../http/json-body.ts";
import { type ContainerTerminalDeps, openContainerTerminal } from "./container-terminal.ts";
import { openShellTerminal, type ShellTerminalDeps } from "./shell-terminal.ts";
import { Terminal, type TerminalJson, type TerminalRuntime } from "./terminal.ts";

/** Idle timeout (no viewer attached) when neither the request nor TERMINAL_IDLE_SECONDS sets one. */
export const DEFAULT_IDLE_SECONDS = 15 * 60;
/** Longest idle timeout a request may ask for: one day. */
export const MAX_IDLE_SECONDS = 24 * 60 * 60;
/** How long an ended terminal stays listed (and re-attachable for its scrollback). */
const KEEP_ENDED_MS = 5 * 60 * 1000;
/** Most terminals open at once per computer. */
export const MAX_TERMINALS = 16;
/** The WebSocket subprotocol of the terminal protocol (terminal.ts). */
export const TERMINAL_PROTOCOL = "computer.terminal.v1";

/** What the terminals need from the DO. */
export interface TerminalManagerDeps {
  container: ContainerTerminalDeps;
  shell: ShellTerminalDeps;
  /** The deployment's default idle timeout (TERMINAL_IDLE_SECONDS), if set. */
  idleSeconds(): number | undefined;
}

function newTerminalId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `tm_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function parseRuntime(body: JsonObject): TerminalRuntime {
  const runtime = optionalString(body, "runtime") ?? "container";
  if (runtime !== "container" && runtime !== "shell")
    throw new ApiError("EINVAL", "'runtime' must be container or shell");
  return runtime;
}

/** The terminals of one computer. */
export class TerminalManager {
  readonly #deps: TerminalManagerDeps;
  readonly #terminals = new Map<string, Terminal>();

  constructor(deps: TerminalManagerDeps) {
    this.#deps = deps;
  }

  /** POST /terminals: starts one → 201 its JSON. 503 EUNAVAILABLE when the container cannot start. */
  async create(body: JsonObject): Promise<TerminalJson> {
    const runtime = parseRuntime(body);
    const cols = requireInteger(body, "cols", 1, 1000);
    const rows = requireInteger(body, "rows", 1, 1000);
    const cwd = parseCwd(optionalString(body, "cwd"));
    const env = parseEnv(body);
    const idleSeconds =
      optionalInteger(body, "idleTimeoutSeconds", 1, MAX_IDLE_SECONDS) ??
      this.#deps.idleSeconds() ??
      DEFAULT_IDLE_SECONDS;
    const running = [...this.#terminals.values()].filter((t) => t.running).length;
    if (running >= MAX_TERMINALS)
      throw new ApiError("EBUSY", `at most ${MAX_TERMINALS} terminals may be open`);
    const id = newTerminalId();
    const terminal = new Terminal(id, runtime, { cols, rows }, idleSeconds * 1000, () => terminal.close());
    this.#terminals.set(id, terminal);
    void terminal.ended.then(() => {
      setTimeout(() => this.#terminals.delete(id), KEEP_ENDED_MS);
    });
    const spec = { id, cols, rows, cwd, env };
    try {
      const backend =
        runtime === "container"
          ? await openContainerTerminal(this.#deps.container, spec, terminal.events)
          : openShellTerminal(this.#deps.shell, spec, terminal.events);
      terminal.run(backend);
    } catch (err) {
      this.#terminals.delete(id);
      terminal.events.exit(null);
      throw err;
    }
    return terminal.json();
  }

  /** The terminal `id`; 404 ENOENT when unknown. */
  get(id: string): Terminal {
    const terminal = this.#terminals.get(id);
    if (terminal === undefined) throw new ApiError("ENOENT", `no terminal ${id}`);
    return terminal;
  }

  list(): TerminalJson[] {
    return [...this.#terminals.values()].map((t) => t.json());
  }

  /** The WebSocket upgrade of `GET /terminals/:tid`. */
  attach(id: string, request: Request): Response {
    const terminal = this.get(id);
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
      throw new ApiError(
        "EINVAL",
        "attach with a WebSocket upgrade (or GET without one for the terminal's state)",
      );
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    terminal.attach(server);
    const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
    const headers: Record<string, string> = offered.includes(TERMINAL_PROTOCOL)
      ? { "Sec-WebSocket-Protocol": TERMINAL_PROTOCOL }
      : {};
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  /** DELETE /terminals/:tid: ends it and answers its final JSON. */
  async kill(id: string): Promise<TerminalJson> {
    const terminal = this.get(id);
    terminal.close();
    await Promise.race([terminal.ended, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    return terminal.json();
  }

  /** Ends every terminal (the computer is deleted). */
  closeAll(): void {
    for (const terminal of this.#terminals.values()) terminal.close();
    this.#terminals.clear();
  }
}
