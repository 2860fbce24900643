/**
 * The dial-back link: on `POST /connect` computerd opens a WebSocket to the Durable Object,
 * presenting the shared secret as a bearer token, and serves DaemonApi on it with capnweb
 * (the DO's DoSyncApi is the remote end). The latest connect wins: when a new link opens, the
 * previous one is disposed and closed; a dial overtaken by a newer one is dropped.
 */

import { type DoSyncApi, WIRE_FRAMES, WIRE_HEADER, WireTransport } from "@computer/vfs/sync";
import { RpcSession, type RpcStub, type RpcTarget } from "capnweb";
import { WebSocket as WsClient } from "ws";
import { BlobPoster } from "./blob-post.ts";
import { sendFragments } from "./fragment-send.ts";
import { frameMaskOptions } from "./frame-mask.ts";

/** One open link. */
export interface Link {
  /** Increases with each connect. */
  readonly id: number;
  readonly url: string;
  /** The Durable Object's API. Disposed (by the manager) when the link is replaced or closed. */
  readonly remote: RpcStub<DoSyncApi>;
  /** Resolves when the socket has closed, for whatever reason. */
  readonly closed: Promise<void>;
  /** Uploads blobs to the same DO as HTTP bodies (blob-post.ts); closed with the link. */
  readonly blobs: BlobPoster;
}

/** How links are made. */
export interface LinkOptions {
  secret: string;
  /** The object served on every link (DaemonTarget). */
  local: RpcTarget;
  /** Called with each new link once it is open (the sync engine reconciles here). */
  onLink?: (link: Link) => void;
  /** A dial that has not opened after this long fails (default 10 s). */
  connectTimeoutMs?: number;
}

/** The ws(s) URL to dial for a `base` given as http(s) or ws(s). Throws on anything else. */
export function linkUrl(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`not a URL: ${JSON.stringify(base)}`);
  }
  const schemes: Record<string, string> = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" };
  const scheme = schemes[url.protocol];
  if (!scheme) throw new Error(`unsupported scheme ${url.protocol} (http, https, ws, wss)`);
  url.protocol = scheme;
  return url.toString();
}

/** Holds the one current link. */
export class LinkManager {
  readonly #options: LinkOptions;
  #generation = 0;
  #current: { link: Link; socket: WebSocket } | undefined;

  constructor(options: LinkOptions) {
    this.#options = options;
  }

  /** The open link, if any. */
  get current(): Link | undefined {
    return this.#current?.link;
  }

  /**
   * Dials `base` and, once the socket is open, makes it the link (closing the previous one).
   * Rejects when the dial fails, times out, or a newer connect overtook it.
   */
  async connect(base: string): Promise<Link> {
    const url = linkUrl(base);
    const generation = ++this.#generation;
    // Without permessage-deflate (which Node's own WebSocket always offers): workerd then
    // compressed every message it sent, chunk bytes included, with zlib (58% of its CPU while
    // the mirror fetched a file).
    const ws = new WsClient(url, {
      // Frames: chunk bytes beside the JSON, not base64 inside it (vfs/src/sync/wire-transport.ts).
      headers: { authorization: `Bearer ${this.#options.secret}`, [WIRE_HEADER]: WIRE_FRAMES },
      perMessageDeflate: false,
      // No XOR copy of every byte sent where masking protects nothing (frame-mask.ts).
      ...frameMaskOptions(url),
    });
    const socket = ws as unknown as WebSocket;
    const closed = new Promise<void>((resolve) =>
      socket.addEventListener("close", () => resolve(), { once: true }),
    );
    // Listening before the socket opens: a DO that calls as soon as it accepted (as it does when
    // the daemon dialed by itself, --dial-back) sends frames right behind its 101, and ws hands
    // those over before a continuation after "open" would run (they were lost). A frame goes
    // as its header and its byte strings, not copied into one buffer (fragment-send.ts).
    const transport = new WireTransport(socket, {
      frames: false,
      sendParts: (parts) => sendFragments(ws, parts),
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`connect to ${url} timed out`)),
        this.#options.connectTimeoutMs ?? 10_000,
      );
      function fail(error: Error) {
        clearTimeout(timer);
        socket.close();
        reject(error);
      }
      socket.addEventListener("open", () => {
        clearTimeout(timer);
        resolve();
      });
      socket.addEventListener("error", () => fail(new Error(`cannot connect to ${url}`)));
      socket.addEventListener("close", (event) =>
        fail(new Error(`connection to ${url} closed (${event.code})`)),
      );
    });
    if (generation !== this.#generation) {
      socket.close(1000, "superseded");
      throw new Error(`connect to ${url} was superseded by a newer connect`);
    }
    const remote = new RpcSession<DoSyncApi>(transport, this.#options.local).getRemoteMain();
    const blobs = new BlobPoster(url, this.#options.secret);
    void closed.then(() => blobs.close());
    const link: Link = { id: generation, url, remote, closed, blobs };
    const previous = this.#current;
    this.#current = { link, socket };
    void closed.then(() => {
      if (this.#current?.link === link) this.#current = undefined;
    });
    if (previous) this.#drop(previous, "replaced");
    this.#options.onLink?.(link);
    return link;
  }

  /** Closes the current link, if any. */
  close(): void {
    this.#generation += 1;
    if (this.#current) this.#drop(this.#current, "closing");
    this.#current = undefined;
  }

  #drop(entry: { link: Link; socket: WebSocket }, reason: string): void {
    entry.link.remote[Symbol.dispose]();
    entry.socket.close(1000, reason);
  }
}
