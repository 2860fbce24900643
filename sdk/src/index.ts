/**
 * `@computer/sdk`: a typed client of the Computer API (docs/API.md). Uses only `fetch`, web
 * streams and TextEncoder, so it runs in Node ≥ 22, Workers and browsers; Node-only helpers
 * (files from disk) are in `@computer/sdk/node`, the wire contract in `@computer/sdk/contract`.
 */
export { Artifacts, ComputerClient, Computers } from "./client.ts";
export { Checkpoints, Computer, Tokens } from "./computer.ts";
export type { ApiErrorCode } from "./contract/errors.ts";
// Every wire type of the contract, by name (listed once, in contract/index.ts; docs/STYLE.md).
export type * from "./contract/types.ts";
export { type ClientErrorCode, ComputerError, type ComputerErrorCode, isComputerError } from "./error.ts";
export { Exec, type ExecEvent, ExecStream, type RunResult } from "./exec.ts";
export {
  type ByteRange,
  type FileDownload,
  Files,
  type HeadStat,
  type Signal,
  type WriteData,
} from "./files.ts";
export { type PreviewAccess, type PreviewInfo, type PreviewRequest, Previews } from "./previews.ts";
export { Terminals } from "./terminals.ts";
export type { CallOptions, ClientOptions } from "./transport.ts";
export type { WatchOptions } from "./watch.ts";
