/**
 * The capnweb wire contract between a computer's Durable Object and its computerd: every
 * interface and value that crosses the dial-back WebSocket. Both ends compile against this
 * one file. Values are plain objects, arrays, strings, numbers and Uint8Array (passed by
 * value); `ExecSink` is the only object passed by reference.
 */
import type { BlobRef } from "../placeholders.ts";
import type { Change } from "../types.ts";

/** A chunk named without its bytes: its hex sha-256 and its size. */
export type { BlobRef };

/** Which end of the link a sync endpoint is: the Durable Object (the authority) or computerd's mirror. */
export type Side = "do" | "container";

/** A value that may be returned directly (in-process) or as a promise (over capnweb). */
export type Awaitable<T> = T | Promise<T>;

/** One extended attribute. */
export interface Xattr {
  name: string;
  value: Uint8Array;
}

/**
 * One entry of a batch: the sender's CURRENT state of `path` (a Change of the vfs feed, plus
 * xattrs) or its deletion (no `stat`), and `base`, the fingerprint of the state the sender
 * believes the receiver holds at `path` ("" = absent). The receiver applies the change only if
 * its own state still has that fingerprint; otherwise both sides changed the path: a conflict.
 */
export interface SyncChange extends Change {
  /** Extended attributes, sorted by name (absent when there are none or the path is deleted). */
  xattrs?: Xattr[];
  /** Fingerprint of the last state both sides agreed on at this path; "" = absent. */
  base: string;
  /**
   * Hard links: for a non-directory whose inode has nlink > 1 on the sender, the OTHER paths
   * naming that inode in the sender's current tree, sorted (absent otherwise). The receiver
   * gives `path` the inode of one of these names that already holds exactly this state there,
   * instead of a separate copy, and detaches `path` from local names not listed (sync/hard-links.ts).
   * Such a change is sent whenever the path is in the feed, even if its state is the base.
   */
  links?: string[];
}

/** A content-addressed chunk: its hex sha-256 and bytes (at most CHUNK_SIZE). */
export interface BlobData {
  hash: string;
  data: Uint8Array;
}

/**
 * One unit of transfer, applied all-or-nothing. Content moves by hash: `changes` name chunks
 * by sha-256; the bytes travel in `blobs` or an earlier `putBlobs` call, and only for the
 * hashes the receiver reported missing.
 */
export interface SyncBatch {
  /** Idempotency key (random). Applying a batch id twice returns the first result and changes nothing. */
  id: string;
  /** Endpoint id of the sender. */
  from: string;
  /** The sender's feed cursor the receiver must be at; otherwise the batch is `stale`. */
  baseCursor: string;
  /** The sender's feed cursor after this batch; the receiver stores it atomically with the changes. */
  cursor: string;
  /**
   * Id of the last batch the sender has applied from the receiver. If that is the receiver's
   * own batch in flight, the receiver settles it (as acknowledged) before applying these
   * changes, which were built knowing it.
   */
  ack?: string;
  /** Changes, in any order: the receiver applies deletions deepest first, then the rest parents first. */
  changes: SyncChange[];
  /** Blobs the receiver lacks, inline (small batches); larger sets come through `putBlobs` first. */
  blobs?: BlobData[];
  /**
   * Blobs the receiver lacks, named without their bytes: only to a receiver whose hello said
   * `fetches`. It records them as placeholders and fetches their bytes (`getBlobs`) when they
   * are first read; the sender holds them (GC keeps them) until the receiver releases them
   * with `releaseBlobs(hashes, holdSeq)`.
   */
  placeholders?: BlobRef[];
  /** The sender's hold sequence number of `placeholders`. */
  holdSeq?: number;
  /**
   * Present while the sender re-lists its whole tree (its feed was pruned past the receiver's
   * cursor, so deletions may be unknown). After the `last` batch the receiver deletes every
   * path it had in sync that the listing did not mention.
   */
  full?: { first: boolean; last: boolean };
}

/**
 * Why a conflict was reported. `content`: both sides changed the path, the loser's version is
 * kept at `copy`. `delete`: one side deleted what the other changed; the change won (nothing to
 * copy). `attributes`: only attributes (mode, owner, times, xattrs) differed; the winner's kept.
 * `kept`: a directory deleted on one side still held unsynced entries of the other; it stays.
 */
export type ConflictReason = "content" | "delete" | "attributes" | "kept";

/** A path that changed on both sides since the last sync, and how it was resolved. */
export interface SyncConflict {
  path: string;
  /** Whose version is now at `path` (the rule: the Durable Object's; see sync/conflict.ts). */
  winner: Side;
  /** Where the losing version was kept, when it had content to keep. */
  copy?: string;
  reason: ConflictReason;
}

/**
 * What `applyBatch` answers. `applied`: done, durably. `duplicate`: this batch id was applied
 * before (the stored result is repeated). `stale`: the receiver's cursor is not `baseCursor`;
 * the sender must reconcile (hello) and rebuild. `missing`: blobs named in `missing` are absent;
 * nothing was applied.
 */
export interface ApplyResult {
  status: "applied" | "duplicate" | "stale" | "missing";
  /** The receiver's vfs revision after the call (for the DO: the revision an exec result reports). */
  rev: number;
  /** The receiver's stored cursor of the sender's feed. */
  cursor: string;
  conflicts: SyncConflict[];
  missing?: string[];
}

/** What a receiver has durably applied of its peer's feed. */
export interface ReceivedState {
  /** The peer endpoint id the receiver knows (null: none yet). */
  peer: string | null;
  /** The peer's feed cursor applied so far ("0": nothing). */
  cursor: string;
  /** Id of the last batch applied from the peer. */
  lastBatch: string | null;
}

/** Sent both ways when a link (re)connects: who I am and what I have applied of you. */
export interface SyncHello {
  /** Stable endpoint id, created with the endpoint's database; a new id means an empty, re-seeded side. */
  id: string;
  side: Side;
  received: ReceivedState;
  /** This side takes blobs as placeholders and fetches their bytes on first read (SyncBatch.placeholders). */
  fetches?: boolean;
}

/**
 * The sync half both ends expose to each other. The SENDER of a direction calls these on the
 * receiver: DO → computerd for pushes, computerd → DO for uploads. No method takes or returns a
 * stub, so nothing needs disposing beyond the result objects (plain data).
 */
export interface SyncPeerApi {
  /**
   * Called by either end on (re)connect and whenever its own batch's fate is unknown. The
   * callee records the caller as its peer (a new peer id resets the callee's sync state, which
   * re-seeds both ways) and answers with its own hello. Returns plain data.
   */
  hello(hello: SyncHello): Awaitable<SyncHello>;
  /** Called by a sender before a batch: which of these chunk hashes the callee lacks. */
  missingBlobs(hashes: string[]): Awaitable<string[]>;
  /** Called by a sender to upload blobs ahead of a batch (groups of a few MiB per call). Idempotent. */
  putBlobs(blobs: BlobData[]): Awaitable<void>;
  /** Called to fetch blobs by hash (pull). Unknown hashes are left out of the answer. */
  getBlobs(hashes: string[]): Awaitable<BlobData[]>;
  /**
   * Called by a receiver of placeholders once it no longer needs the callee to keep `hashes`
   * (it stored their bytes, or no file of its own uses them any more): ends the callee's holds
   * made at hold sequence `upTo` (the highest `SyncBatch.holdSeq` the caller applied) or before.
   */
  releaseBlobs(hashes: string[], upTo: number): Awaitable<void>;
  /**
   * Called by the sender with one batch (DO → computerd: the push before and during commands;
   * computerd → DO: the upload of container writes). Applies it atomically and idempotently.
   */
  applyBatch(batch: SyncBatch): Awaitable<ApplyResult>;
}

/** The interface the Durable Object exposes to computerd over the dial-back WebSocket. */
export interface DoSyncApi extends SyncPeerApi {
  /**
   * The DO's current vfs revision. Plain data. (computerd before issue 16's session 20 asked it
   * when a fence found nothing to upload; the DO now fills in its own revision.)
   */
  rev(): Awaitable<number>;
}

/** A command to run in the container, as the DO journals it. */
export interface ExecSpec {
  /** The exec id (`ex_...`), chosen by the DO. */
  id: string;
  /** Passed to `/bin/sh -c`. */
  command: string;
  /** Working directory inside /workspace (default /workspace). */
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  /** Without one, computerd's default applies; a detached command then has none at all. */
  timeoutMs?: number;
  /** Bytes of stdout+stderr kept for the journal; streaming is not capped. */
  outputCap?: number;
  /**
   * A background process: it does not count as activity for idle stops, and computerd kills
   * it once its sink fails (the link to the DO is gone), so the DO's `killed` record is true.
   */
  detached?: boolean;
}

/** How a command ended (before the upload fence). */
export interface ExecExit {
  execId: string;
  status: "completed" | "failed" | "timeout" | "killed";
  exitCode: number | null;
  signal?: string;
  durationMs: number;
}

/**
 * Implemented by the DO (an RpcTarget) and passed BY REFERENCE to `DaemonApi.exec`/`attach`.
 * computerd receives a stub that capnweb disposes when that call returns, so computerd must
 * `dup()` it to keep streaming, and dispose its duplicate right after calling `exit`. The DO
 * disposes its own stub when the exec is journaled as finished or the link drops.
 */
export interface ExecSink {
  /** Called by computerd for each piece of output, in `seq` order per exec (seq starts at 0). */
  output(execId: string, seq: number, stream: "stdout" | "stderr", data: string): Awaitable<void>;
  /** Called once by computerd when the command has exited; the DO then calls `fence()`. */
  exit(exit: ExecExit): Awaitable<void>;
}

/** A terminal to open in the container: an interactive shell on a pseudo-terminal. */
export interface TerminalSpec {
  /** The terminal id (`tm_...`), chosen by the DO. */
  id: string;
  cols: number;
  rows: number;
  /** Directory inside /workspace the shell starts in (default /workspace). */
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * Implemented by the DO (an RpcTarget) and passed BY REFERENCE to `DaemonApi.openTerminal`.
 * As with ExecSink, computerd `dup()`s the stub it receives and disposes its duplicate right
 * after calling `closed`.
 */
export interface TerminalSink {
  /** Called by computerd with the terminal's output bytes, in order. */
  output(terminalId: string, data: Uint8Array): Awaitable<void>;
  /** Called once by computerd when the shell has exited (or was killed). */
  closed(terminalId: string, exitCode: number | null, signal?: string): Awaitable<void>;
}

/** Answer of `DaemonApi.fence`. */
export interface FenceResult {
  /**
   * A DO revision at which every container change up to the fence is applied there: the one
   * that answered the fence's last upload, or, when the fence sent nothing, the link's last (0:
   * none). The DO reports the later of it and its own revision.
   */
  rev: number;
  conflicts: SyncConflict[];
}

/** What `DaemonApi.health` reports. */
export interface DaemonHealth {
  ok: boolean;
  /** Endpoint id of computerd's mirror. */
  mirror: string;
  running: string[];
}

/** The computer's limits as the Durable Object holds them (`DaemonApi.setLimits`). */
export interface ComputerLimits {
  /** Bytes the computer's files may allocate; null = unlimited. (The vfs has no inode limit.) */
  quotaBytes: number | null;
}

/** The interface computerd exposes to the Durable Object on the same WebSocket. */
export interface DaemonApi extends SyncPeerApi {
  /**
   * Called by the DO on a link before it pushes for a command (so before any command runs on
   * that link) and whenever the quota changes (`PUT /v1/computers/:id`). computerd applies the
   * limits to its mirror: the mount's statfs shows them and a write past them fails with ENOSPC
   * in the syscall. The DO still checks every uploaded batch against its own quota. Plain data.
   */
  setLimits(limits: ComputerLimits): Awaitable<void>;
  /**
   * Called by the DO after a command exits (and before answering an exec): computerd flushes
   * writes still buffered in FUSE/kernel, uploads everything pending through `DoSyncApi.applyBatch`
   * and returns once the DO has applied it all. A rejection means "pending": the DO marks the
   * exec's sync pending and computerd's next connect finishes the upload.
   */
  fence(): Awaitable<FenceResult>;
  /**
   * Called by the DO once every DO-side change has been pushed (a failed push means this is
   * not called). Starts the command and resolves when it has started; output and exit arrive
   * through `sink` (see ExecSink for who disposes it).
   */
  exec(spec: ExecSpec, sink: ExecSink): Awaitable<{ pid: number }>;
  /** Called by the DO to kill a running command (SIGKILL to its process group). False if unknown. */
  kill(execId: string): Awaitable<boolean>;
  /**
   * Called by the DO to re-attach a sink to a running command (after the DO restarted):
   * output from `afterSeq` + 1 on is replayed, then streamed. Same disposal rule as `exec`.
   */
  attach(execId: string, sink: ExecSink, afterSeq?: number): Awaitable<boolean>;
  /** Called by the DO's health probe. */
  health(): Awaitable<DaemonHealth>;
  /**
   * Called by the DO (after a push, as before an exec) to start an interactive shell on a new
   * pseudo-terminal of `spec.cols` x `spec.rows`; resolves once it runs. Output and the end
   * arrive through `sink` (see TerminalSink for who disposes it). What the shell writes syncs
   * through the background uploader while any terminal is open.
   */
  openTerminal(spec: TerminalSpec, sink: TerminalSink): Awaitable<{ pid: number }>;
  /** Called by the DO with keyboard input for a terminal. False if unknown. Plain data. */
  writeTerminal(terminalId: string, data: Uint8Array): Awaitable<boolean>;
  /** Called by the DO when the viewer's window changed size (the shell gets SIGWINCH). */
  resizeTerminal(terminalId: string, cols: number, rows: number): Awaitable<boolean>;
  /** Called by the DO to end a terminal: SIGHUP to its process group, SIGKILL after a grace. */
  closeTerminal(terminalId: string): Awaitable<boolean>;
}
