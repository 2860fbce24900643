/** Scrollback keeps exactly the last `capacity` bytes, whatever the chunk sizes. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Scrollback } from "./scrollback.ts";

describe("scrollback", () => {
  it("keeps the last capacity bytes of everything pushed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.uint8Array({ maxLength: 40 })),
        (cap, chunks) => {
          const scrollback = new Scrollback(cap);
          for (const chunk of chunks) scrollback.push(chunk);
          const all = chunks.flatMap((chunk) => [...chunk]);
          expect([...scrollback.bytes()]).toEqual(all.slice(Math.max(0, all.length - cap)));
          expect(scrollback.size).toBe(Math.min(cap, all.length));
        },
      ),
    );
  });
});
