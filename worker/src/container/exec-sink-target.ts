/**
 * The `ExecSink` (vfs/src/sync/wire.ts) the DO passes BY REFERENCE to `DaemonApi.exec`:
 * computerd calls `output` for each piece, in seq order, then `exit` once. Pieces replayed
 * after a re-attach (seq already seen) are dropped, so the journal never holds one twice.
 * The RpcTarget exposes only the two wire methods; the DO reads progress from ExecSinkState.
 */
import type { ExecExit, ExecSink } from "@computer/vfs/sync";
import { RpcTarget } from "capnweb";
import type { RuntimeSink } from "../exec/runtime.ts";

/** What the DO knows about one container exec's stream. */
export class ExecSinkState {
  readonly execId: string;
  readonly sink: RuntimeSink;
  /** The last seq received (for `attach(execId, sink, afterSeq)`). */
  lastSeq = -1;
  /** Settles with the exit computerd reported. */
  readonly exited: Promise<ExecExit>;
  resolveExit: (exit: ExecExit) => void = () => undefined;

  constructor(execId: string, sink: RuntimeSink) {
    this.execId = execId;
    this.sink = sink;
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
  }
}

/** Receives one container exec's output and exit (called by computerd only). */
export class ExecSinkTarget extends RpcTarget implements ExecSink {
  readonly #state: ExecSinkState;

  constructor(state: ExecSinkState) {
    super();
    this.#state = state;
  }

  output(execId: string, seq: number, stream: "stdout" | "stderr", data: string): void {
    const state = this.#state;
    if (execId !== state.execId || typeof seq !== "number" || seq <= state.lastSeq) return;
    if ((stream !== "stdout" && stream !== "stderr") || typeof data !== "string") return;
    state.lastSeq = seq;
    state.sink.output(stream, data);
  }

  exit(exit: ExecExit): void {
    if (exit?.execId !== this.#state.execId) return;
    this.#state.resolveExit(exit);
  }
}
