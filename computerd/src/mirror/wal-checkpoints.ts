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
 */
import { Worker } from "node:worker_threads";
import type { BatchedSql } from "./batched-sqlite.ts";
import type { CheckpointResult, CheckpointWorkerData } from "./wal-checkpoint-worker.ts";

/** How long after a commit the worker checkpoints (commits meanwhile share it). */
export const CHECKPOINT_DELAY_MS = 50;
/** How long `close` waits for the worker to close its connection. */
const CLOSE_WAIT_MS = 10_000;

/** Checkpoints done on the worker. */
export interface WalCheckpointCounters {
  checkpoints: number;
  /** WAL frames the worker's checkpoints found copied in all (theirs and earlier ones). */
  frames: number;
  /** Checkpoints that could not finish (another held the lock). */
  busy: number;
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
  const worker = new Worker(new URL("./wal-checkpoint-worker.ts", import.meta.url), { workerData });
  // A checkpoint thread never keeps the daemon alive on its own.
  worker.unref();
  const counters: WalCheckpointCounters = { checkpoints: 0, frames: 0, busy: 0 };
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
  const start = () => {
    timer = undefined;
    if (stopped) return settleIfIdle();
    running = true;
    worker.postMessage("checkpoint");
  };
  worker.on("message", (result: CheckpointResult) => {
    running = false;
    counters.checkpoints++;
    if (result.busy) counters.busy++;
    else counters.frames += Math.max(0, result.checkpointed);
    if (again && !stopped) {
      again = false;
      timer = setTimeout(start, CHECKPOINT_DELAY_MS);
    }
    settleIfIdle();
  });
  const stop = () => {
    stopped = true;
    running = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    settleIfIdle();
  };
  // A worker that fails or ends (it cannot open the file) leaves the checkpoints to the commits,
  // as before.
  worker.on("error", stop);
  worker.on("exit", stop);
  const unsubscribe = sql.onCommit(() => {
    if (stopped) return;
    if (running) again = true;
    else if (timer === undefined) timer = setTimeout(start, CHECKPOINT_DELAY_MS);
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
      // Closed before the mirror's own connection, so that one is the last: its close then
      // checkpoints what is left and removes the WAL, as without the worker.
      worker.postMessage("close");
      Atomics.wait(closed, 0, 0, CLOSE_WAIT_MS);
      void worker.terminate();
    },
  };
}
