/**
 * The exec runner's values: what a caller asks for (the wire's ExecSpec), the events a
 * command's output becomes, and the result object of docs/API.md that an exec ends with.
 */
import type { ExecExit } from "@computer/vfs/sync";

export type { ExecExit, ExecSink, ExecSpec } from "@computer/vfs/sync";

/** How an exec ended: exit 0, non-zero exit, its timeout, or a kill. */
export type ExecStatus = ExecExit["status"];

/** The two output streams of a command. */
export type StreamName = "stdout" | "stderr";

/** One piece of output. `seq` starts at 0 and is shared by both streams of an exec. */
export interface OutputEvent {
  seq: number;
  stream: StreamName;
  /** UTF-8 text (a multi-byte character split across reads is kept whole). */
  data: string;
}

/** Where sync stood when an exec's result was returned (filled in by the sync layer). */
export interface ExecSyncInfo {
  status: "complete" | "pending" | "none";
  rev?: number;
  conflicts?: unknown[];
}

/** The result object of docs/API.md for a finished container exec. */
export interface ExecResult {
  id: string;
  runtime: "container";
  status: ExecStatus;
  /** The exit code; 128 + n when the command was ended by signal n (then `signal` names it). */
  exitCode: number;
  signal?: string;
  stdout: string;
  stderr: string;
  /** True when output passed the cap and was dropped (the marker is in the text). */
  truncated: boolean;
  /** Output bytes dropped past the cap. */
  droppedBytes: number;
  durationMs: number;
  /** ISO-8601 start time. */
  startedAt: string;
  /** Seq of the last output event (-1: none). */
  lastSeq: number;
  sync?: ExecSyncInfo;
}

/** What `GET /exec/:id` answers while a command runs. */
export interface ExecRunning {
  id: string;
  runtime: "container";
  status: "running";
  pid: number;
  startedAt: string;
  durationMs: number;
  lastSeq: number;
  /** Present on a background process. */
  detached?: true;
}

/** The wire's ExecExit for a result. */
export function toExecExit(result: ExecResult): ExecExit {
  const exit: ExecExit = {
    execId: result.id,
    status: result.status,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
  };
  if (result.signal !== undefined) exit.signal = result.signal;
  return exit;
}
