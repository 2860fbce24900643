/**
 * A computer's previews (docs/API.md "Previews"): a URL that reaches a port inside its
 * container, HTTP and WebSocket, for a server started there (usually a background process:
 * `exec.run({ runtime: "container", source: "npm run dev", detach: true })`).
 */
import type { Signal } from "./files.ts";
import type { Transport } from "./transport.ts";

/** Who may open a preview URL: anyone holding it, or only with a token of the computer. */
export type PreviewAccess = "public" | "token";

/** `POST .../ports` body. */
export interface PreviewRequest {
  /** 1–65535. */
  port: number;
  /** Lifetime of the URL, default one day, at most 30. */
  ttlSeconds?: number;
  /** Default `public`: signed, expiring, no token needed. */
  access?: PreviewAccess;
}

/** An open preview. */
export interface PreviewInfo {
  port: number;
  /** Ends with `/`; the app's paths go after it. */
  url: string;
  access: PreviewAccess;
  createdAt: string;
  expiresAt: string;
}

/** The previews of one computer. */
export class Previews {
  readonly #t: Transport;
  readonly #id: string;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.#id = id;
  }

  /**
   * Opens a preview of `port` (or answers the one already open with that access; the other
   * access is EEXIST). A port nothing listens on answers 502 ECONNREFUSED on request.
   */
  open(request: PreviewRequest, options: Signal = {}): Promise<PreviewInfo> {
    return this.#t.json("ports.open", { params: { id: this.#id }, json: request, signal: options.signal });
  }

  /** The open previews, by port. */
  async list(options: Signal = {}): Promise<PreviewInfo[]> {
    const page = await this.#t.json<{ previews: PreviewInfo[] }>("ports.list", {
      params: { id: this.#id },
      signal: options.signal,
    });
    return page.previews;
  }

  /** Closes the preview of `port`: every URL of it answers 404 (none open: ENOENT). */
  close(port: number, options: Signal = {}): Promise<void> {
    return this.#t.empty("ports.close", {
      params: { id: this.#id, port: String(port) },
      signal: options.signal,
    });
  }
}
