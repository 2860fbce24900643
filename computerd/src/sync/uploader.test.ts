/**
 * The background uploader: runs only while active, coalesces bursts, catches up at once, backs
 * off on failure. Its timers are vitest's fake ones, so "nothing more happened" is checked by
 * advancing the clock well past every delay, not by sleeping.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { Uploader, type UploaderOptions } from "./uploader.ts";

function harness(overrides: Partial<UploaderOptions> = {}) {
  const listeners = new Set<() => void>();
  const state = { active: true, calls: 0, more: 0, settling: 0, fail: 0, logged: 0 };
  const uploader = new Uploader({
    intervalMs: 10,
    maxBackoffMs: 40,
    active: () => state.active,
    upload: async () => {
      state.calls++;
      if (state.fail > 0) {
        state.fail--;
        throw new Error("link down");
      }
      if (state.more > 0) {
        state.more--;
        return true;
      }
      if (state.settling > 0) {
        state.settling--;
        return "settling" as const;
      }
      return false;
    },
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    log: () => {
      state.logged++;
    },
    ...overrides,
  });
  uploader.start();
  const change = () => {
    for (const listener of listeners) listener();
  };
  return { uploader, state, change, listeners };
}

/** Runs the uploader's timers (and the uploads they start) for `ms` of fake time. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("Uploader", () => {
  test("a burst of changes is one upload after the interval", async () => {
    const { uploader, state, change } = harness();
    for (let i = 0; i < 20; i++) change();
    expect(state.calls).toBe(0);
    await elapse(10);
    expect(state.calls).toBe(1);
    await elapse(1000);
    expect(state.calls).toBe(1);
    await uploader.stop();
  });

  test("keeps going while more is waiting, then stops", async () => {
    const { uploader, state, change } = harness();
    state.more = 3;
    change();
    for (let i = 0; i < 4; i++) await elapse(10);
    expect(state.calls).toBe(4);
    await elapse(1000);
    expect(state.calls).toBe(4);
    await uploader.stop();
  });

  test("changes still settling are uploaded an interval later, without another change", async () => {
    const { uploader, state, change } = harness();
    state.settling = 2;
    change();
    await elapse(10);
    expect(state.calls).toBe(1);
    await elapse(5);
    expect(state.calls).toBe(1);
    await elapse(5 + 10);
    expect(state.calls).toBe(3);
    await elapse(1000);
    expect(state.calls).toBe(3);
    await uploader.stop();
  });

  test("inactive (no command, no link): keeps the mark and uploads once active again", async () => {
    const { uploader, state, change } = harness();
    state.active = false;
    change();
    await elapse(1000);
    expect(state.calls).toBe(0);
    state.active = true;
    change();
    await elapse(10);
    expect(state.calls).toBe(1);
    await uploader.stop();
  });

  test("failures are logged and retried with a growing delay until one works", async () => {
    const { uploader, state, change } = harness();
    state.fail = 3;
    change();
    await elapse(10 + 20 + 40 + 40);
    expect(state.calls).toBe(4);
    expect(state.logged).toBe(3);
    expect(uploader.counters).toEqual({ uploads: 1, failures: 3 });
    await uploader.stop();
  });

  test("stop unsubscribes and schedules nothing more", async () => {
    const { uploader, state, change, listeners } = harness();
    change();
    await uploader.stop();
    expect(listeners.size).toBe(0);
    await elapse(1000);
    expect(state.calls).toBe(0);
  });
});
