/**
 * computerd's side of the blob upload: the chunks the upload sends ahead of its batches (a
 * `putBlobs` of up to 8 MiB) go to the DO as the body of `POST <link URL>/blobs` instead of as
 * a binary message on the link, where workerd made each message a fresh zero-filled
 * ArrayBuffer before copying the bytes in (vfs/src/sync/blob-stream.ts). The body is each
 * blob's header and its bytes, a chunk's written to the socket as they are (small blobs packed
 * together); the request presents the daemon's secret like the dial-back. A DO without the
 * endpoint (an older Worker: 404, or 401 from the Worker's own authentication) gets `putBlobs`
 * on the link instead.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { type BlobData, blobStreamBytes, blobStreamParts } from "@computer/vfs/sync";

/** A request that neither sends nor receives anything for this long fails (the upload is retried). */
const IDLE_TIMEOUT_MS = 60_000;

/** The blob upload URL of a link URL (ws(s) or http(s)): the same path plus `/blobs`, over http(s). */
export function blobsUrl(linkUrl: string): string {
  const url = new URL(linkUrl);
  url.protocol = url.protocol === "wss:" || url.protocol === "https:" ? "https:" : "http:";
  url.pathname = `${url.pathname.replace(/\/$/, "")}/blobs`;
  return url.toString();
}

/** Uploads blobs to one link's DO over kept-alive connections. */
export class BlobPoster {
  readonly url: string;
  readonly #secret: string;
  readonly #https: boolean;
  readonly #agent: HttpAgent;
  /** The DO answered that it has no blob upload: the link's `putBlobs` from now on. */
  #unsupported = false;

  constructor(linkUrl: string, secret: string) {
    this.url = blobsUrl(linkUrl);
    this.#secret = secret;
    this.#https = this.url.startsWith("https:");
    // Two: the upload has at most two calls in flight (vfs/src/sync/session.ts putGroups).
    const options = { keepAlive: true, maxSockets: 2 };
    this.#agent = this.#https ? new HttpsAgent(options) : new HttpAgent(options);
  }

  /** False when the DO has no blob upload (send them on the link then); rejects when the upload failed. */
  async post(blobs: readonly BlobData[]): Promise<boolean> {
    if (this.#unsupported) return false;
    const res = await this.#send(blobs);
    const text = await readText(res);
    const status = res.statusCode ?? 0;
    if (status === 404 || status === 401) {
      this.#unsupported = true;
      return false;
    }
    if (status !== 200) throw new Error(`the DO refused the blob upload (${status}): ${text.slice(0, 300)}`);
    const stored = JSON.parse(text) as { blobs?: unknown };
    if (stored.blobs !== blobs.length) {
      throw new Error(`the DO stored ${String(stored.blobs)} of ${blobs.length} blobs`);
    }
    return true;
  }

  /** Closes the kept-alive connections (the link is gone). */
  close(): void {
    this.#agent.destroy();
  }

  #send(blobs: readonly BlobData[]): Promise<IncomingMessage> {
    const options: RequestOptions = {
      method: "POST",
      agent: this.#agent,
      timeout: IDLE_TIMEOUT_MS,
      headers: {
        authorization: `Bearer ${this.#secret}`,
        "content-type": "application/octet-stream",
        "content-length": String(blobStreamBytes(blobs)),
      },
    };
    return new Promise((resolve, reject) => {
      const req = (this.#https ? httpsRequest : httpRequest)(this.url, options, resolve);
      req.on("error", reject);
      req.on("timeout", () => req.destroy(new Error(`the blob upload to ${this.url} stalled`)));
      for (const part of blobStreamParts(blobs)) req.write(part);
      req.end();
    });
  }
}

async function readText(res: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of res as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts).toString("utf8");
}
