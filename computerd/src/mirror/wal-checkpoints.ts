/**
 * The mirror's WAL checkpoints, done ahead on a thread of their own. A checkpoint copies the
 * WAL's pages into the database file and fsyncs both; SQLite runs it inside the COMMIT that
 * finds the WAL past its size (64 MiB), on computerd's JS thread, which every FUSE request that
 * needs JS waits for. During an `npm ci` of 644 packages that thread spent ~1.7 s in 26 such
 * commits of 50–90 ms (docs/BENCH.md, "The mirror's checkpoints on a thread of their own").
 *
 * So after each commit a worker thread with its own connection runs a PASSIVE checkpoint (it
 * takes no lock the writer needs and never waits), at most one at a time, CHECKPOINT_DELAY_MS
 * after the commit. The WAL size limit stays as it was: the commit that reaches it still
 * checkpoints, but finds the pages copied and synced already, and resets the WAL, which a
 * checkpoint beside a writer that commits every 20 ms alone could not (SQLite starts the WAL
 * over only at a write that finds every frame copied).
 *
 * The worker starts with the first checkpoint due, FIRST_CHECKPOINT_DELAY_MS after the mirror's
 * first commit: a worker's start is a Node environment of its own (~100 ms of CPU here), which a
 * new computer's first exec paid for on two cores, and a spare's rehearsal mirror (closed at
 * once) never needs. Until then the WAL grows as it did without the worker.
 */
import { Worker } from "node:worker_threads";
import type { BatchedSql } from "./batched-sqlite.ts";
import type { CheckpointResult, CheckpointWorkerData } from "./wal-checkpoint-worker.ts";

/** How long after a commit the worker checkpoints (commits meanwhile share it). */
export const CHECKPOINT_DELAY_MS = 50;
/** How long after the first commit the worker starts and makes its first checkpoint. */
export const FIRST_CHECKPOINT_DELAY_MS = 1_000;
/** How long `close` waits for the worker to close its connection. */
const CLOSE_WAIT_MS = 10_000;

/** Checkpoints done on the worker. */
export interface WalCheckpointCounters {
  checkpoints: number;
  /** WAL frames the worker's checkpoints found copied in all (theirs and earlier ones). */
  frames: number;
  /** Checkpoints that could not finish (another held the lock). */
  busy: number;
  /** 1 once the worker thread was started (with the first checkpoint due). */
  workers: number;
}

/** A running checkpoint thread of one mirror. */
export interface WalCheckpoints {
  readonly counters: WalCheckpointCounters;
  /** Settles once no checkpoint is due or on its way (for tests and the space bench). */
  idle(): Promise<void>;
  /** Stops checkpointing and closes the worker's connection before returning. */
  close(): void;
}

/** Starts checkpointing the mirror `file` (whose writes go through `sql`) on a worker thread. */
export function checkpointInBackground(
  file: string,
  sql: BatchedSql,
  synchronous: "NORMAL" | "OFF" = "NORMAL",
): WalCheckpoints {
  const closed = new Int32Array(new SharedArrayBuffer(4));
  const workerData: CheckpointWorkerData = { file, synchronous, closed };
  const counters: WalCheckpointCounters = { checkpoints: 0, frames: 0, busy: 0, workers: 0 };
  let worker: Worker | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  let waiters: (() => void)[] = [];

  const settleIfIdle = () => {
    if (running || timer !== undefined) return;
    for (const resolve of waiters) resolve();
    waiters = [];
  };
  const stop = () => {
    stopped = true;
    running = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    settleIfIdle();
  };
  const onResult = (result: CheckpointResult) => {
    running = false;
    counters.checkpoints++;
    if (result.busy) counters.busy++;
    else counters.frames += Math.max(0, result.checkpointed);
    if (again && !stopped) {
      again = false;
      timer = setTimeout(start, CHECKPOINT_DELAY_MS);
    }
    settleIfIdle();
  };
  const startWorker = (): Worker => {
    const started = new Worker(new URL("./wal-checkpoint-worker.ts", import.meta.url), { workerData });
    counters.workers++;
    // A checkpoint thread never keeps the daemon alive on its own.
    started.unref();
    started.on("message", onResult);
    // A worker that fails or ends (it cannot open the file) leaves the checkpoints to the
    // commits, as before.
    started.on("error", stop);
    started.on("exit", stop);
    return started;
  };
  function start() {
    timer = undefined;
    if (stopped) return settleIfIdle();
    running = true;
    worker ??= startWorker();
    worker.postMessage("checkpoint");
  }
  const unsubscribe = sql.onCommit(() => {
    if (stopped) return;
    if (running) again = true;
    else if (timer === undefined)
      timer = setTimeout(start, worker === undefined ? FIRST_CHECKPOINT_DELAY_MS : CHECKPOINT_DELAY_MS);
  });

  return {
    counters,
    idle: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleIfIdle();
      }),
    close() {
      unsubscribe();
      if (stopped) return;
      stop();
      if (worker === undefined) return;
      // Closed before the mirror's own connection, so that one is the last: its close then
      // checkpoints what is left and removes the WAL, as without the worker.
      worker.postMessage("close");
      Atomics.wait(closed, 0, 0, CLOSE_WAIT_MS);
      void worker.terminate();
    },
  };
}
