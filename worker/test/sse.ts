/**
 * Reading Server-Sent Events in tests: frames as `{ event, data, id, at }`, where `at` is the
 * time the frame arrived (to show output reaches the client before the exit). `FrameReader`
 * reads a stream that stays open (the change feed) one frame at a time.
 */

/** One received SSE frame. */
export interface Frame {
  event: string;
  data: string;
  id: string | undefined;
  /** Date.now() when the frame was parsed. */
  at: number;
}

function parseFrame(block: string): Frame {
  const frame: Frame = { event: "message", data: "", id: undefined, at: Date.now() };
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const field = line.slice(0, colon);
    const text = line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") frame.event = text;
    else if (field === "data") frame.data += text;
    else if (field === "id") frame.id = text;
  }
  return frame;
}

/** Reads the frames of one SSE response as they arrive (comments such as keep-alives skipped). */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  /** Every frame read so far. */
  readonly frames: Frame[] = [];

  constructor(res: Response) {
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error("no body");
    this.#reader = reader;
  }

  /** The next frame, or undefined once the stream has ended. */
  async next(): Promise<Frame | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        if (block.startsWith(":")) continue;
        const frame = parseFrame(block);
        this.frames.push(frame);
        return frame;
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
  }

  /** Every remaining frame (and those read before). */
  async rest(): Promise<Frame[]> {
    while ((await this.next()) !== undefined);
    return this.frames;
  }

  /** Frames up to and including the first whose event is `event` (throws if the stream ends first). */
  async until(event: string): Promise<Frame[]> {
    const frames: Frame[] = [];
    for (;;) {
      const frame = await this.next();
      if (frame === undefined) throw new Error(`stream ended before a '${event}' event`);
      frames.push(frame);
      if (frame.event === event) return frames;
    }
  }

  /** Closes the connection. */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

/** Reads every frame of `res` until the stream ends. */
export function readFrames(res: Response): Promise<Frame[]> {
  return new FrameReader(res).rest();
}

/** The parsed `data` of a frame. */
export function dataOf<T>(frame: Frame | undefined): T {
  if (frame === undefined) throw new Error("no frame");
  return JSON.parse(frame.data) as T;
}
