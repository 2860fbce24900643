/**
 * A computer's terminals (docs/API.md "Terminals"): open, list, describe and end them. The
 * terminal's bytes flow over a WebSocket; `attachUrl` names it for a WebSocket client (with the
 * token as the `bearer.<token>` subprotocol).
 */
import type { TerminalInfo, TerminalRequest } from "./contract/types.ts";
import type { Signal } from "./files.ts";
import type { Transport } from "./transport.ts";

/** The terminals of one computer. */
export class Terminals {
  readonly #t: Transport;
  readonly #id: string;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.#id = id;
  }

  /** Opens a terminal (an interactive shell on a pty in the container, or a shell terminal). */
  open(request: TerminalRequest, options: Signal = {}): Promise<TerminalInfo> {
    return this.#t.json("terminals.create", {
      params: { id: this.#id },
      json: request,
      signal: options.signal,
    });
  }

  /** Running terminals, and ended ones for five minutes. */
  async list(options: Signal = {}): Promise<TerminalInfo[]> {
    const page = await this.#t.json<{ terminals: TerminalInfo[] }>("terminals.list", {
      params: { id: this.#id },
      signal: options.signal,
    });
    return page.terminals;
  }

  /** A terminal's state. */
  get(tid: string, options: Signal = {}): Promise<TerminalInfo> {
    return this.#t.json("terminals.get", { params: { id: this.#id, tid }, signal: options.signal });
  }

  /** Ends a terminal; answers its final state. */
  end(tid: string, options: Signal = {}): Promise<TerminalInfo> {
    return this.#t.json("terminals.kill", { params: { id: this.#id, tid }, signal: options.signal });
  }

  /** The WebSocket URL that attaches to terminal `tid` (ws: or wss:). */
  attachUrl(tid: string): string {
    return this.#t.urlOf("terminals.get", { id: this.#id, tid }).replace(/^http/, "ws");
  }
}
