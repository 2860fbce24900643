/**
 * A Server-Sent Events reader over a web stream (the exec stream of docs/API.md): yields each
 * event's name, data and id as it arrives. Handles CRLF, multi-line data and comments.
 */

/** One event of the stream. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/** The events of `body`, in order, as they arrive. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "message";
  let data: string[] = [];
  let id: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.search(/\r\n|\r|\n/); end !== -1; end = buffer.search(/\r\n|\r|\n/)) {
        // A lone CR at the end may be the first half of a CRLF still on its way.
        if (end === buffer.length - 1 && buffer.endsWith("\r")) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) yield { event, data: data.join("\n"), id };
          event = "message";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
