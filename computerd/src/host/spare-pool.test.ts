import { describe, expect, it } from "vitest";
import type { SpareDaemon } from "./spare-daemon.ts";
import { SparePool } from "./spare-pool.ts";

/** A stand-in spare: starting until `ready` is set, gone once `available` is cleared. */
interface FakeSpare {
  n: number;
  ready: boolean;
  available: boolean;
  stopped: boolean;
  stop(): void;
}

function fakes() {
  const started: FakeSpare[] = [];
  const start = () => {
    const spare: FakeSpare = {
      n: started.length,
      ready: false,
      available: true,
      stopped: false,
      stop() {
        this.stopped = true;
      },
    };
    started.push(spare);
    return spare as unknown as SpareDaemon;
  };
  return { started, start };
}

describe("SparePool", () => {
  it("keeps its size started, hands out a ready spare before a starting one and replaces it", () => {
    const { started, start } = fakes();
    const pool = new SparePool(2, start);
    expect(started.map((s) => s.n)).toEqual([0, 1]);
    (started[1] as FakeSpare).ready = true;
    expect((pool.take() as unknown as FakeSpare).n).toBe(1);
    expect(started).toHaveLength(3);
    // None ready: the oldest still starting (it reads its assignment once ready).
    expect((pool.take() as unknown as FakeSpare).n).toBe(0);
    expect(started).toHaveLength(4);
  });

  it("drops spares that went away, and starts none after stop (which ends the untaken)", () => {
    const { started, start } = fakes();
    const pool = new SparePool(2, start);
    for (const spare of started) spare.available = false;
    // Both replaced, one of the new ones handed out (still starting), and that one replaced.
    expect((pool.take() as unknown as FakeSpare).n).toBe(2);
    expect(started).toHaveLength(5);
    pool.stop();
    expect(started.slice(2).map((s) => s.stopped)).toEqual([false, true, true]);
    expect(pool.take()).toBeUndefined();
    expect(started).toHaveLength(5);
  });

  it("of size 0 starts nothing", () => {
    const { started, start } = fakes();
    expect(new SparePool(0, start).take()).toBeUndefined();
    expect(started).toHaveLength(0);
  });
});
