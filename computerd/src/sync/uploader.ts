/**
 * The background uploader: while a command runs, what it writes streams to the Durable Object
 * in batches, so the fence after its exit only has the tail left. Every commit of the mirror
 * that carried operations marks it dirty; at most every `intervalMs` (or at once while it is
 * behind) one bounded upload runs. The write-back layer stores closed files by itself, so
 * what reaches the mirror's change feed is what gets uploaded. Failures are logged and retried
 * with a growing delay; the fence (or the next command) picks up whatever is left.
 */

/** What one upload left: see UploaderOptions.upload. */
export type UploadOutcome = boolean | "settling";

/** What the uploader drives. */
export interface UploaderOptions {
  /** Pause between uploads while writes continue (default 150 ms). */
  intervalMs?: number;
  /** Longest pause after failures (default 5 s). */
  maxBackoffMs?: number;
  /** True while uploading is worth it (a command runs and there is a link). */
  active(): boolean;
  /**
   * One bounded upload; resolves true when more is waiting behind it (go on at once), "settling"
   * when changes too recent to send wait (go on after the interval), false when all is sent.
   */
  upload(): Promise<UploadOutcome>;
  /** Subscribes to local changes (the mount's onChange); returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  log(message: string, err?: unknown): void;
}

/** Streams local changes while commands run. */
export class Uploader {
  readonly #options: UploaderOptions;
  readonly #intervalMs: number;
  #unsubscribe: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #dirty = false;
  #failures = 0;
  #stopped = false;
  /** Uploads done and uploads that failed (for logs and tests). */
  readonly counters = { uploads: 0, failures: 0 };

  constructor(options: UploaderOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? 150;
  }

  /** Starts listening for local changes. */
  start(): void {
    this.#unsubscribe ??= this.#options.onChange(() => this.poke());
  }

  /** Notes that something changed (also called when a command starts or a link opens). */
  poke(): void {
    this.#dirty = true;
    this.#schedule(this.#intervalMs);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped || this.#timer !== undefined || this.#running !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#tick().then((behind) => {
        this.#running = undefined;
        // Behind: go on at once instead of waiting for the interval.
        if (this.#dirty) this.#schedule(behind ? 0 : this.#delay());
      });
    }, delayMs);
    this.#timer.unref?.();
  }

  #delay(): number {
    if (this.#failures === 0) return this.#intervalMs;
    return Math.min(this.#options.maxBackoffMs ?? 5000, this.#intervalMs * 2 ** this.#failures);
  }

  /** One upload; resolves true when more is waiting. Never rejects. */
  async #tick(): Promise<boolean> {
    // Nothing runs: keep the mark; the fence, or the next command's writes, take it from here.
    if (this.#stopped || !this.#options.active()) return false;
    this.#dirty = false;
    try {
      const outcome = await this.#options.upload();
      this.counters.uploads++;
      this.#failures = 0;
      if (outcome !== false) this.#dirty = true;
      return outcome === true;
    } catch (err) {
      this.counters.failures++;
      this.#failures++;
      this.#dirty = true;
      this.#options.log("background upload failed; retrying", err);
      return false;
    }
  }

  /** Stops scheduling and waits for an upload in progress to settle. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
