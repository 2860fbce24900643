/**
 * The thread that checkpoints the mirror's WAL (wal-checkpoints.ts): its own connection to the
 * mirror file, a PASSIVE checkpoint per "checkpoint" message (it never waits for a lock and
 * never blocks the writer), its result posted back. "close" closes the connection and raises
 * the shared flag the main thread waits on.
 */
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

/** What the main thread hands the worker. */
export interface CheckpointWorkerData {
  file: string;
  synchronous: "NORMAL" | "OFF";
  /** Int32Array over a SharedArrayBuffer: set to 1 once the connection is closed. */
  closed: Int32Array;
}

/** A checkpoint's result, as `PRAGMA wal_checkpoint` reports it. */
export interface CheckpointResult {
  /** 1 when it could not finish (another checkpoint held the lock). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of the WAL now in the database file. */
  checkpointed: number;
}

const data = workerData as CheckpointWorkerData;
const db = new DatabaseSync(data.file);
db.exec(`PRAGMA synchronous = ${data.synchronous}`);
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");

parentPort?.on("message", (message: unknown) => {
  if (message === "checkpoint") {
    let result: CheckpointResult = { busy: 1, log: -1, checkpointed: -1 };
    try {
      const [row] = checkpoint.all() as unknown as CheckpointResult[];
      if (row) result = { busy: row.busy, log: row.log, checkpointed: row.checkpointed };
    } catch {
      // SQLITE_BUSY and the like: the next commit asks again.
    }
    parentPort?.postMessage(result);
  } else if (message === "close") {
    db.close();
    Atomics.store(data.closed, 0, 1);
    Atomics.notify(data.closed, 0);
    parentPort?.close();
  }
});
