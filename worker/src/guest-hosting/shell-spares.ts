/**
 * Spare shell isolates (docs/ARCHITECTURE.md, "Spare shell isolates"). A computer's first shell
 * exec loads the shell guest, the 1.3 MiB just-bash bundle, into a new isolate: ~75–95 ms of
 * compile and top-level evaluation while the client waits. The pool loads one guest ahead,
 * under a fresh random id that belongs to no computer, once this isolate serves no request, and
 * hands it to exactly one computer at that computer's first shell exec; the id is then that
 * computer's (kept in its storage) and the pool never hands it out again.
 *
 * A spare is keyed by what its code depends on, the bundle version and the egress policy (the
 * guest's globalOutbound), so it only ever serves a computer that would have been loaded with
 * the same code. It is warmed with a call that carries nothing (no env, no capabilities: those
 * come with each exec; it runs `true` in a scratch tree so just-bash's run path is compiled),
 * so it holds nothing of any computer before the hand-out.
 *
 * One pool per isolate (module state): in production DOs of one class run in many isolates and
 * each keeps its own spare. The loader's cache may evict a spare at any time; the computer's
 * `get` then loads the guest again under its id, which is the cold load, never an error.
 * workerd compiles on the thread that serves requests, so a warm-up delays whatever request
 * arrives while it runs by up to its length: the pool only starts one once the isolate has
 * served nothing for IDLE_MS.
 */

/** Loads the shell guest under `id` and runs its warm-up (`true` in a scratch tree, no capabilities). */
export type WarmSpare = (id: string) => Promise<void>;

/** Time as the pool sees it (tests drive it by hand). */
export interface SpareClock {
  now(): number;
  wait(ms: number): Promise<void>;
}

/**
 * How long the isolate must have served nothing before a spare is warmed. "No request in
 * flight" alone is too early: the answer of the request that just returned is still on its
 * way out through the same thread (the Worker, locally wrangler's proxy), and a warm-up
 * started then delays it by the warm-up's length.
 */
export const IDLE_MS = 50;
/** How often a waiting refill looks whether the isolate has gone idle. */
export const IDLE_POLL_MS = 10;
/**
 * How long a refill waits for an idle moment before it gives up (the next hand-out asks again):
 * its timer keeps the DO that asked alive that long.
 */
export const REFILL_PATIENCE_MS = 10_000;
/** Spares kept at most (one per key; the oldest key goes first). */
export const MAX_SPARE_KEYS = 4;

const realClock: SpareClock = {
  now: () => Date.now(),
  wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

function randomSpareId(): string {
  return crypto.randomUUID();
}

/** The spares of one isolate and the requests it has in flight. */
export class ShellSpares {
  /** key → id of a spare warm or warming, not handed out yet. */
  readonly #spares = new Map<string, string>();
  /** Keys with a refill waiting for an idle moment. */
  readonly #waiting = new Set<string>();
  /** Keys whose spare is being warmed right now. */
  readonly #warming = new Set<string>();
  readonly #clock: SpareClock;
  readonly #newId: () => string;
  #inFlight = 0;
  /** When a request last entered or left. */
  #lastActive = Number.NEGATIVE_INFINITY;

  constructor(clock: SpareClock = realClock, newId: () => string = randomSpareId) {
    this.#clock = clock;
    this.#newId = newId;
  }

  /** Counts one request in flight in this isolate until the returned function is called. */
  enter(): () => void {
    this.#inFlight++;
    this.#lastActive = this.#clock.now();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#inFlight--;
      this.#lastActive = this.#clock.now();
    };
  }

  #idle(): boolean {
    return this.#inFlight === 0 && this.#clock.now() - this.#lastActive >= IDLE_MS;
  }

  /** The spare loaded for `key`, handed out once (undefined if there is none). */
  take(key: string): string | undefined {
    const id = this.#spares.get(key);
    this.#spares.delete(key);
    return id;
  }

  /**
   * Keeps one spare of `key`: once no request is in flight, a fresh id is warmed by `warm`
   * (which runs in the caller's context: the loader and the outbound are the caller's). A
   * refill already waiting, or a spare already there, makes this a no-op.
   */
  refill(key: string, warm: WarmSpare): void {
    if (this.#spares.has(key) || this.#waiting.has(key)) return;
    this.#waiting.add(key);
    void this.#fill(key, warm);
  }

  /** Spares not handed out yet (for tests and counters). */
  get size(): number {
    return this.#spares.size;
  }

  async #fill(key: string, warm: WarmSpare): Promise<void> {
    const giveUp = this.#clock.now() + REFILL_PATIENCE_MS;
    try {
      // Never in the path of the request that asked: at the earliest once it has gone out.
      await this.#clock.wait(0);
      while (!this.#idle() || this.#warming.has(key)) {
        if (this.#clock.now() >= giveUp) return;
        await this.#clock.wait(IDLE_POLL_MS);
      }
      if (this.#spares.has(key)) return;
    } finally {
      this.#waiting.delete(key);
    }
    const id = this.#newId();
    this.#spares.set(key, id);
    for (const oldest of this.#spares.keys()) {
      if (this.#spares.size <= MAX_SPARE_KEYS) break;
      this.#spares.delete(oldest);
    }
    this.#warming.add(key);
    try {
      await warm(id);
    } catch {
      // Not loaded: a computer that took it meanwhile loads the guest itself under the id.
      if (this.#spares.get(key) === id) this.#spares.delete(key);
    } finally {
      this.#warming.delete(key);
    }
  }
}

/** This isolate's pool, shared by every Computer DO it runs. */
export const shellSpares = new ShellSpares();
