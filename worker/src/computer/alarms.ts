/**
 * The one alarm of a Computer DO, shared by several jobs: each job (the hourly GC, the retry
 * of pending container syncs) keeps its own due time in the DO's synchronous KV, and the alarm
 * is set to the earliest of them. `deleteAll()` clears both, so a deleted computer's jobs stop.
 */

/** The jobs that share the alarm. */
export type AlarmJob = "gc" | "sync";

const JOBS: readonly AlarmJob[] = ["gc", "sync"];

function key(job: AlarmJob): string {
  return `alarm:${job}`;
}

/** Due times of the alarm's jobs. */
export class AlarmSchedule {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** When `job` is due next (undefined: not scheduled). */
  dueAt(job: AlarmJob): number | undefined {
    const at = this.#storage.kv.get<number>(key(job));
    return typeof at === "number" ? at : undefined;
  }

  /** Schedules `job` at `at` (replacing its previous time) and moves the alarm earlier if needed. */
  async schedule(job: AlarmJob, at: number): Promise<void> {
    this.#storage.kv.put(key(job), at);
    const current = await this.#storage.getAlarm();
    if (current === null || current > at) await this.#storage.setAlarm(at);
  }

  /** The jobs due at `now`, unscheduled (a job reschedules itself if it must run again). */
  takeDue(now: number): AlarmJob[] {
    const due: AlarmJob[] = [];
    for (const job of JOBS) {
      const at = this.dueAt(job);
      if (at !== undefined && at <= now) {
        this.#storage.kv.delete(key(job));
        due.push(job);
      }
    }
    return due;
  }

  /** Sets the alarm to the earliest scheduled job, or clears it when none is left. */
  async rearm(): Promise<void> {
    const times = JOBS.map((job) => this.dueAt(job)).filter((at): at is number => at !== undefined);
    if (times.length === 0) await this.#storage.deleteAlarm();
    else await this.#storage.setAlarm(Math.min(...times));
  }
}
