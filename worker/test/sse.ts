/**
 * Reading Server-Sent Events in tests: frames as `{ event, data, id, at }`, where `at` is the
 * time the frame arrived (to show output reaches the client before the exit).
 */

/** One received SSE frame. */
export interface Frame {
  event: string;
  data: string;
  id: string | undefined;
  /** Date.now() when the frame was parsed. */
  at: number;
}

/** Reads every frame of `res` until the stream ends. */
export async function readFrames(res: Response): Promise<Frame[]> {
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (reader === undefined) throw new Error("no body");
  const frames: Frame[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: Frame = { event: "message", data: "", id: undefined, at: Date.now() };
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        const field = line.slice(0, colon);
        const text = line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") frame.event = text;
        else if (field === "data") frame.data += text;
        else if (field === "id") frame.id = text;
      }
      frames.push(frame);
      end = buffer.indexOf("\n\n");
    }
  }
  return frames;
}

/** The parsed `data` of a frame. */
export function dataOf<T>(frame: Frame | undefined): T {
  if (frame === undefined) throw new Error("no frame");
  return JSON.parse(frame.data) as T;
}
