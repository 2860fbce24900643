/**
 * A test viewer of a terminal's WebSocket (the protocol of worker/src/terminals/terminal.ts):
 * keystrokes out as binary frames, resize as JSON, the screen's bytes in as text that can be
 * waited on, and the exit message. Works over workerd's WebSocket (SELF.fetch upgrade) and
 * Node's global WebSocket (the real fleet) alike.
 */

/** The part of a WebSocket the viewer uses. */
export interface SocketLike {
  binaryType: string;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: () => void): void;
}

const encoder = new TextEncoder();

/** One attached viewer. */
export class TerminalViewer {
  readonly #socket: SocketLike;
  readonly #decoder = new TextDecoder();
  readonly #waiters = new Set<() => void>();
  /** Everything the terminal showed this viewer, decoded. */
  text = "";
  exit: { exitCode: number | null; signal?: string } | undefined;
  errors: { code: string; message: string }[] = [];
  closed = false;

  constructor(socket: SocketLike) {
    this.#socket = socket;
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", ({ data }) => {
      if (typeof data === "string") {
        const message = JSON.parse(data) as {
          type: string;
          exitCode?: number | null;
          signal?: string;
          code?: string;
          message?: string;
        };
        if (message.type === "exit")
          this.exit = {
            exitCode: message.exitCode ?? null,
            ...(message.signal ? { signal: message.signal } : {}),
          };
        if (message.type === "error")
          this.errors.push({ code: message.code ?? "", message: message.message ?? "" });
      } else if (ArrayBuffer.isView(data)) {
        this.text += this.#decoder.decode(data as Uint8Array, { stream: true });
      } else if (typeof data === "object" && data !== null && "byteLength" in data) {
        // An ArrayBuffer, possibly of another realm (workerd hands the test its own).
        this.text += this.#decoder.decode(new Uint8Array(data as ArrayBuffer), { stream: true });
      }
      this.#wake();
    });
    socket.addEventListener("close", () => {
      this.closed = true;
      this.#wake();
    });
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
  }

  /** Types `keys` (sent as one binary frame). */
  type(keys: string): void {
    this.#socket.send(encoder.encode(keys));
  }

  resize(cols: number, rows: number): void {
    this.#socket.send(JSON.stringify({ type: "resize", cols, rows }));
  }

  /** Sends a raw text frame (a control message). */
  control(text: string): void {
    this.#socket.send(text);
  }

  close(): void {
    this.#socket.close(1000, "bye");
  }

  /** Waits until `done()` holds (or throws after `timeoutMs`, naming `what`). */
  async until(done: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; screen: ${JSON.stringify(this.text.slice(-600))}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
        setTimeout(wake, 100);
      });
    }
  }

  /** Waits until the screen after index `from` matches `pattern`; returns the index after the match. */
  async waitFor(pattern: RegExp, from = 0, timeoutMs = 20_000): Promise<number> {
    let end = -1;
    await this.until(
      () => {
        const match = pattern.exec(this.text.slice(from));
        if (match) end = from + match.index + match[0].length;
        return match !== null;
      },
      String(pattern),
      timeoutMs,
    );
    return end;
  }

  /** Waits for the exit message. */
  async waitExit(timeoutMs = 20_000): Promise<{ exitCode: number | null; signal?: string }> {
    await this.until(() => this.exit !== undefined, "the exit message", timeoutMs);
    return this.exit ?? { exitCode: null };
  }
}
