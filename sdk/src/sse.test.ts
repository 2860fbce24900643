/** The SSE reader: events split anywhere across chunks, CRLF, multi-line data, comments. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSse, type SseEvent } from "./sse.ts";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(streamOf(chunks))) events.push(event);
  return events;
}

const TEXT =
  'id: 0\nevent: stdout\ndata: {"seq":0,"data":"héllo\\n"}\n\n: comment\r\nevent: exit\r\ndata: a\r\ndata: b\r\n\r\n';
const EXPECTED: SseEvent[] = [
  { event: "stdout", data: '{"seq":0,"data":"héllo\\n"}', id: "0" },
  { event: "exit", data: "a\nb", id: "0" },
];

describe("readSse", () => {
  it("reads events, CRLF lines, multi-line data and skips comments", async () => {
    expect(await collect([TEXT])).toEqual(EXPECTED);
  });

  it("gives the same events however the bytes are split", async () => {
    const bytes = new TextEncoder().encode(TEXT);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              for (let i = 1; i < points.length; i++)
                controller.enqueue(bytes.slice(points[i - 1], points[i]));
              controller.close();
            },
          });
          const events: SseEvent[] = [];
          for await (const event of readSse(stream)) events.push(event);
          expect(events).toEqual(EXPECTED);
        },
      ),
    );
  });
});
