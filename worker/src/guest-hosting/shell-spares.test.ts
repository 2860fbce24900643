import { describe, expect, it } from "vitest";
import {
  IDLE_MS,
  IDLE_POLL_MS,
  MAX_SPARE_KEYS,
  REFILL_PATIENCE_MS,
  ShellSpares,
  type SpareClock,
} from "./shell-spares.ts";

/** A clock the test moves: waits resolve when `advance` passes their time. */
class ManualClock implements SpareClock {
  #now = 0;
  #timers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.#now;
  }

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => this.#timers.push({ at: this.#now + ms, resolve }));
  }

  /** Moves time on by `ms` in poll-sized steps, running whatever became due. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#timers.filter((t) => t.at <= this.#now);
      this.#timers = this.#timers.filter((t) => t.at > this.#now);
      for (const timer of due) timer.resolve();
      await settle();
      if (this.#now >= end) return;
      this.#now = Math.min(end, this.#now + IDLE_POLL_MS);
    }
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function pool() {
  const clock = new ManualClock();
  let n = 0;
  const spares = new ShellSpares(clock, () => `spare-${++n}`);
  const warmed: string[] = [];
  const warm = async (id: string) => {
    warmed.push(id);
  };
  return { clock, spares, warmed, warm };
}

describe("ShellSpares", () => {
  it("hands each spare to one computer once; a spare serves only its own bundle version and egress policy", async () => {
    const { clock, spares, warmed, warm } = pool();
    spares.refill("v1:none", warm);
    await clock.advance(0);
    expect(warmed).toEqual(["spare-1"]);
    expect(spares.take("v1:all")).toBeUndefined();
    expect(spares.take("v2:none")).toBeUndefined();
    expect(spares.take("v1:none")).toBe("spare-1");
    expect(spares.take("v1:none")).toBeUndefined();
    spares.refill("v1:none", warm);
    await clock.advance(0);
    expect(warmed).toEqual(["spare-1", "spare-2"]);
    expect(spares.take("v1:none")).toBe("spare-2");
  });

  it(`warms only once no request has been in flight for ${IDLE_MS} ms, never in the asking request's turn`, async () => {
    const { clock, spares, warmed, warm } = pool();
    const left = spares.enter();
    spares.refill("k", warm);
    expect(warmed).toEqual([]);
    await clock.advance(500);
    expect(warmed).toEqual([]);
    left();
    left(); // leaving twice counts once
    const other = spares.enter();
    await clock.advance(IDLE_MS * 2);
    expect(warmed).toEqual([]);
    other();
    await clock.advance(IDLE_MS - IDLE_POLL_MS);
    expect(warmed).toEqual([]);
    await clock.advance(IDLE_POLL_MS * 2);
    expect(warmed).toEqual(["spare-1"]);
  });

  it("one refill per key at a time; a spare taken while it warms is handed out once, the next waits for that warm", async () => {
    const { clock, spares } = pool();
    const started: string[] = [];
    let finish: () => void = () => undefined;
    const slow = (id: string) => {
      started.push(id);
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    };
    spares.refill("k", slow);
    spares.refill("k", slow);
    await clock.advance(0);
    expect(started).toEqual(["spare-1"]);
    expect(spares.take("k")).toBe("spare-1");
    spares.refill("k", slow);
    await clock.advance(100);
    expect(started).toEqual(["spare-1"]);
    finish();
    await clock.advance(IDLE_POLL_MS * 2);
    expect(started).toEqual(["spare-1", "spare-2"]);
    expect(spares.take("k")).toBe("spare-2");
  });

  it("a warm-up that fails leaves no spare: the next computer loads its own", async () => {
    const { clock, spares } = pool();
    spares.refill("k", () => Promise.reject(new Error("evicted")));
    await clock.advance(0);
    expect(spares.size).toBe(0);
    expect(spares.take("k")).toBeUndefined();
  });

  it("gives up after waiting too long for an idle moment; a later refill asks again", async () => {
    const { clock, spares, warmed, warm } = pool();
    const left = spares.enter();
    spares.refill("k", warm);
    await clock.advance(REFILL_PATIENCE_MS + IDLE_POLL_MS);
    left();
    await clock.advance(IDLE_POLL_MS * 2);
    expect(warmed).toEqual([]);
    spares.refill("k", warm);
    await clock.advance(IDLE_MS + IDLE_POLL_MS);
    expect(warmed).toEqual(["spare-1"]);
  });

  it(`keeps at most ${MAX_SPARE_KEYS} spares, dropping the oldest key`, async () => {
    const { clock, spares, warm } = pool();
    for (let i = 0; i <= MAX_SPARE_KEYS; i++) {
      spares.refill(`k${i}`, warm);
      await clock.advance(0);
    }
    expect(spares.size).toBe(MAX_SPARE_KEYS);
    expect(spares.take("k0")).toBeUndefined();
    expect(spares.take(`k${MAX_SPARE_KEYS}`)).toBe(`spare-${MAX_SPARE_KEYS + 1}`);
  });
});
