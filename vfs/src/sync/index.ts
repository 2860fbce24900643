/**
 * @computer/vfs/sync: the sync engine between a computer's Durable Object and computerd's
 * mirror, and the capnweb wire types both ends compile against. Pure TS over a Vfs and its
 * SqlLike; runs in the DO and in computerd.
 */
export {
  BLOB_HEADER_BYTES,
  blobHeader,
  blobStreamBytes,
  blobStreamParts,
  readBlobGroups,
} from "./blob-stream.ts";
export { CONFLICT_LOSER, CONFLICT_WINNER, conflictCopyPath } from "./conflict.ts";
export { SyncEndpoint } from "./endpoint.ts";
export type { SyncOptions } from "./local.ts";
export { type FaultPoint, LinkError, Loopback, type LoopbackStats } from "./loopback.ts";
export { type BatchLimits, DEFAULT_LIMITS, type Outgoing } from "./outbox.ts";
export {
  type AroundSyncCall,
  forwardSyncPeer,
  type SyncPeerMethod,
  type SyncPeerRemote,
} from "./peer-forwarder.ts";
export { applyOrder, batchHashes, checkBatch } from "./receive.ts";
export {
  type DrainOptions,
  type DrainReport,
  groupBlobs,
  PLACEHOLDER_FILE_BYTES,
  SyncLink,
  type SyncLinkOptions,
} from "./session.ts";
export { fingerprint, type PathState, readState } from "./state.ts";
export { countSyncCall, newSyncCounters, type SyncCounters, syncMetrics } from "./sync-counters.ts";
export type {
  ApplyResult,
  Awaitable,
  BlobData,
  BlobRef,
  ComputerLimits,
  ConflictReason,
  DaemonApi,
  DaemonHealth,
  DoSyncApi,
  ExecExit,
  ExecSink,
  ExecSpec,
  FenceResult,
  ReceivedState,
  Side,
  SyncBatch,
  SyncChange,
  SyncConflict,
  SyncHello,
  SyncPeerApi,
  TerminalSink,
  TerminalSpec,
  Xattr,
} from "./wire.ts";
export {
  type FrameSocket,
  WIRE_FRAMES,
  WIRE_HEADER,
  WireTransport,
  type WireTransportOptions,
} from "./wire-transport.ts";
