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

/** Stand-in spares, and the pool's delayed refills, run by hand. */
function fakes() {
  const started: FakeSpare[] = [];
  const refills: (() => void)[] = [];
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
  const refill = () => {
    for (const fill of refills.splice(0)) fill();
  };
  return { started, start, later: (fill: () => void) => refills.push(fill), refill, refills };
}

const number = (spare: SpareDaemon | undefined) => (spare as unknown as FakeSpare | undefined)?.n;

describe("SparePool", () => {
  it("keeps its size started, hands out a ready spare before a starting one, and refills later", () => {
    const { started, start, later, refill, refills } = fakes();
    const pool = new SparePool(2, start, later);
    expect(started.map((s) => s.n)).toEqual([0, 1]);
    (started[1] as FakeSpare).ready = true;
    expect(number(pool.take())).toBe(1);
    // Not in the take: the computer that took it is starting.
    expect(started).toHaveLength(2);
    expect(refills).toHaveLength(1);
    // None ready: the oldest still starting (it reads its assignment once ready). It was the
    // last one: the pool is filled at once.
    expect(number(pool.take())).toBe(0);
    expect(started.map((s) => s.n)).toEqual([0, 1, 2, 3]);
    refill();
    expect(started).toHaveLength(4);
  });

  it("starts one at once when none runs, drops spares that went away, and none after stop", () => {
    const { started, start, later, refill, refills } = fakes();
    const pool = new SparePool(2, start, later);
    for (const spare of started) spare.available = false;
    // Both gone: the pool is filled now and one of the new ones (still starting) handed out.
    expect(number(pool.take())).toBe(2);
    expect(started).toHaveLength(4);
    expect(refills).toHaveLength(1);
    (started[3] as FakeSpare).available = false;
    refill();
    expect(started).toHaveLength(6);
    pool.stop();
    expect(started.slice(4).map((s) => s.stopped)).toEqual([true, true]);
    expect(pool.take()).toBeUndefined();
    refill();
    expect(started).toHaveLength(6);
  });

  it("of size 0 starts nothing", () => {
    const { started, start, later, refill } = fakes();
    expect(new SparePool(0, start, later).take()).toBeUndefined();
    refill();
    expect(started).toHaveLength(0);
  });
});
