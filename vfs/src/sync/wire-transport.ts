/**
 * The capnweb transport of the dial-back link: capnweb's WebSocket transport, except that
 * messages carrying bytes (putBlobs, getBlobs, a batch's inline blobs, terminal output) go as
 * binary frames (byte-frames.ts) instead of base64 inside JSON text: no base64 on either end,
 * and the receiver's bytes are views of the frame it got.
 *
 * Both forms are always accepted; a message without bytes goes as text either way. A side sends
 * frames once it knows the peer takes them: computerd asks for them with the
 * `X-Computer-Wire: frames` header of its dial-back, so the DO sends its first message as a
 * frame (whatever it holds) and every later one with bytes; computerd sends frames once one
 * arrived (a DO that ignores the header keeps text both ways, as does a computerd that does not
 * ask).
 */
import { decodeFrame, encodeMessage, encodeParts, encodeText } from "./byte-frames.ts";

/** The request header (and its value) by which the dialing side asks for frames. */
export const WIRE_HEADER = "x-computer-wire";
export const WIRE_FRAMES = "frames";

/** What the transport uses of a WebSocket (workerd's and the `ws` package's both fit). */
export interface FrameSocket {
  readonly readyState: number;
  binaryType: string;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close" | "error", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}

const CONNECTING = 0;

/** Options of a WireTransport. */
export interface WireTransportOptions {
  /** The peer asked for frames (the DO's side, from the dial-back's header). */
  frames: boolean;
  /**
   * Sends one binary message in pieces (WebSocket fragments, in order, nothing else between
   * them). With it a frame goes as its header and its byte strings as they are, instead of being
   * copied into one buffer first (8 MiB per putBlobs call).
   */
  sendParts?: (parts: readonly Uint8Array[]) => void;
}

/** capnweb's `RpcTransportWithCustomEncoding` over a WebSocket, frames or text per message. */
export class WireTransport {
  readonly encodingLevel = "jsonCompatibleWithBytes" as const;
  readonly #socket: FrameSocket;
  #frames: boolean;
  /** This side sent its first frame: the peer knows it takes frames. */
  #announced = false;
  readonly #sendParts: ((parts: readonly Uint8Array[]) => void) | undefined;
  #sendQueue: (string | Uint8Array | Uint8Array[])[] | undefined;
  readonly #receiveQueue: unknown[] = [];
  #waiter: { resolve(message: unknown): void; reject(error: unknown): void } | undefined;
  #error: unknown;

  constructor(socket: FrameSocket, options: WireTransportOptions) {
    this.#socket = socket;
    this.#frames = options.frames;
    this.#sendParts = options.sendParts;
    socket.binaryType = "arraybuffer";
    if (socket.readyState === CONNECTING) {
      this.#sendQueue = [];
      socket.addEventListener("open", () => {
        try {
          for (const message of this.#sendQueue ?? []) this.#write(message);
        } catch (err) {
          this.#failed(err);
        }
        this.#sendQueue = undefined;
      });
    }
    socket.addEventListener("message", (event) => this.#received(event.data));
    socket.addEventListener("close", () => this.#failed(new Error("the peer closed the WebSocket")));
    socket.addEventListener("error", () => this.#failed(new Error("the WebSocket failed")));
  }

  /** True once this side sends frames. */
  get sendsFrames(): boolean {
    return this.#frames;
  }

  send(message: unknown): number {
    const data = this.#encode(message);
    this.#announced ||= this.#frames;
    if (this.#sendQueue) this.#sendQueue.push(data);
    else this.#write(data);
    if (typeof data === "string") return data.length;
    if (data instanceof Uint8Array) return data.byteLength;
    let bytes = 0;
    for (const part of data) bytes += part.byteLength;
    return bytes;
  }

  #encode(message: unknown): string | Uint8Array | Uint8Array[] {
    if (!this.#frames) return encodeText(message);
    return this.#sendParts
      ? encodeParts(message, !this.#announced)
      : encodeMessage(message, !this.#announced);
  }

  #write(data: string | Uint8Array | Uint8Array[]): void {
    if (Array.isArray(data)) this.#sendParts?.(data);
    else this.#socket.send(data);
  }

  receive(): Promise<unknown> {
    if (this.#receiveQueue.length > 0) return Promise.resolve(this.#receiveQueue.shift());
    if (this.#error !== undefined) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  abort(reason: unknown): void {
    let text = reason instanceof Error ? reason.message : String(reason);
    // A close reason is at most 123 bytes.
    while (new TextEncoder().encode(text).length > 123) text = text.slice(0, -1);
    this.#socket.close(3000, text);
    this.#error ??= reason;
  }

  #received(data: unknown): void {
    if (this.#error !== undefined) return;
    let message: unknown;
    try {
      if (typeof data === "string") message = JSON.parse(data);
      else if (data instanceof ArrayBuffer) {
        message = decodeFrame(data);
        this.#frames = true;
      } else throw new TypeError("unexpected WebSocket message type");
    } catch (err) {
      this.#failed(err);
      return;
    }
    if (this.#waiter) {
      this.#waiter.resolve(message);
      this.#waiter = undefined;
    } else this.#receiveQueue.push(message);
  }

  #failed(reason: unknown): void {
    if (this.#error !== undefined) return;
    this.#error = reason;
    this.#waiter?.reject(reason);
    this.#waiter = undefined;
  }
}
