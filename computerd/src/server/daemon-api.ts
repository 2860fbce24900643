/**
 * What computerd serves to its Durable Object over the dial-back link: the wire's DaemonApi.
 * Exec, kill, attach, terminals and health are answered here; the sync half (hello, blobs, batches,
 * fence) is delegated to the sync engine when one is plugged in.
 */

import type {
  ApplyResult,
  BlobData,
  ComputerLimits,
  DaemonApi,
  DaemonHealth,
  FenceResult,
  SyncBatch,
  SyncHello,
  TerminalSink,
  TerminalSpec,
} from "@computer/vfs/sync";
import { RpcTarget } from "capnweb";
import type { ExecTable } from "../exec/exec-table.ts";
import type { ExecSink, ExecSpec } from "../exec/types.ts";
import type { TerminalTable } from "../terminal/terminal-table.ts";
import { onSinkBroken, pumpToSink, retainSink } from "./sink-pump.ts";

/** The sync engine's side of DaemonApi, plus the id of computerd's mirror endpoint. */
export type DaemonSync = Pick<
  DaemonApi,
  "hello" | "missingBlobs" | "putBlobs" | "getBlobs" | "releaseBlobs" | "applyBatch" | "fence" | "setLimits"
> & {
  /** Endpoint id of the mirror, for `health`. */
  readonly endpointId: string;
};

function noSync(): never {
  throw new Error("computerd: sync is not available on this daemon");
}

/** The DaemonApi target. One instance may serve successive links. */
export class DaemonTarget extends RpcTarget implements DaemonApi {
  readonly #table: ExecTable;
  readonly #sync: DaemonSync | undefined;
  readonly #terminals: TerminalTable | undefined;

  constructor(table: ExecTable, sync?: DaemonSync, terminals?: TerminalTable) {
    super();
    this.#table = table;
    this.#terminals = terminals;
    this.#sync = sync;
  }

  /**
   * Starts the command; output and exit go to `sink` (duplicated here, disposed when sent).
   * A background process dies with its sink: once the link to the DO is gone, the DO has
   * recorded it killed, and a process nobody can see or stop must not keep running.
   */
  async exec(spec: ExecSpec, sink: ExecSink): Promise<{ pid: number }> {
    const exec = this.#table.start(spec);
    const retained = retainSink(sink);
    if (exec.detached) onSinkBroken(retained, () => exec.kill());
    void pumpToSink(exec, retained).then((delivered) => {
      if (!delivered && exec.detached) exec.kill();
    });
    // A spawner answers the pid a moment after the spawn (spawner.ts).
    return { pid: await exec.started() };
  }

  kill(execId: string): boolean {
    return this.#table.kill(execId);
  }

  /** Replays output after `afterSeq` to `sink`, then streams the rest and the exit. */
  async attach(execId: string, sink: ExecSink, afterSeq?: number): Promise<boolean> {
    const source = await this.#table.find(execId);
    if (!source || !("log" in source || source.result)) return false;
    void pumpToSink(source, retainSink(sink), afterSeq ?? -1);
    return true;
  }

  #requireTerminals(): TerminalTable {
    if (this.#terminals === undefined)
      throw new Error("computerd: terminals are not available on this daemon");
    return this.#terminals;
  }

  /** Starts a shell on a new pseudo-terminal; output and the end go to `sink` (duplicated here). */
  openTerminal(spec: TerminalSpec, sink: TerminalSink): { pid: number } {
    return this.#requireTerminals().open(spec, sink);
  }

  writeTerminal(terminalId: string, data: Uint8Array): boolean {
    return this.#requireTerminals().write(terminalId, data);
  }

  resizeTerminal(terminalId: string, cols: number, rows: number): boolean {
    return this.#requireTerminals().resize(terminalId, cols, rows);
  }

  closeTerminal(terminalId: string): boolean {
    return this.#requireTerminals().close(terminalId);
  }

  health(): DaemonHealth {
    return { ok: true, mirror: this.#sync?.endpointId ?? "", running: this.#table.running() };
  }

  setLimits(limits: ComputerLimits): Promise<void> | void {
    return this.#sync ? this.#sync.setLimits(limits) : noSync();
  }

  fence(): Promise<FenceResult> | FenceResult {
    return this.#sync ? this.#sync.fence() : noSync();
  }

  hello(hello: SyncHello): Promise<SyncHello> | SyncHello {
    return this.#sync ? this.#sync.hello(hello) : noSync();
  }

  missingBlobs(hashes: string[]): Promise<string[]> | string[] {
    return this.#sync ? this.#sync.missingBlobs(hashes) : noSync();
  }

  putBlobs(blobs: BlobData[]): Promise<void> | void {
    return this.#sync ? this.#sync.putBlobs(blobs) : noSync();
  }

  getBlobs(hashes: string[]): Promise<BlobData[]> | BlobData[] {
    return this.#sync ? this.#sync.getBlobs(hashes) : noSync();
  }

  releaseBlobs(hashes: string[], upTo: number): Promise<void> | void {
    return this.#sync ? this.#sync.releaseBlobs(hashes, upTo) : noSync();
  }

  applyBatch(batch: SyncBatch): Promise<ApplyResult> | ApplyResult {
    return this.#sync ? this.#sync.applyBatch(batch) : noSync();
  }
}
