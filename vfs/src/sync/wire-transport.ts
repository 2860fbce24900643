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
import { decodeFrame, encodeMessage, encodeText } from "./byte-frames.ts";

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

/** capnweb's `RpcTransportWithCustomEncoding` over a WebSocket, frames or text per message. */
export class WireTransport {
  readonly encodingLevel = "jsonCompatibleWithBytes" as const;
  readonly #socket: FrameSocket;
  #frames: boolean;
  /** This side sent its first frame: the peer knows it takes frames. */
  #announced = false;
  #sendQueue: (string | Uint8Array)[] | undefined;
  readonly #receiveQueue: unknown[] = [];
  #waiter: { resolve(message: unknown): void; reject(error: unknown): void } | undefined;
  #error: unknown;

  /** `frames`: the peer asked for frames (the DO's side, from the dial-back's header). */
  constructor(socket: FrameSocket, options: { frames: boolean }) {
    this.#socket = socket;
    this.#frames = options.frames;
    socket.binaryType = "arraybuffer";
    if (socket.readyState === CONNECTING) {
      this.#sendQueue = [];
      socket.addEventListener("open", () => {
        try {
          for (const message of this.#sendQueue ?? []) socket.send(message);
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
    const data = this.#frames ? encodeMessage(message, !this.#announced) : encodeText(message);
    this.#announced ||= this.#frames;
    if (this.#sendQueue) this.#sendQueue.push(data);
    else this.#socket.send(data);
    return typeof data === "string" ? data.length : data.byteLength;
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
