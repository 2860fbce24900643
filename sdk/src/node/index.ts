/**
 * `@computer/sdk/node`: helpers that need Node (the local disk): upload and download of files
 * and folders, streamed, with progress callbacks.
 */
export {
  downloadFile,
  downloadTree,
  type Progress,
  type TransferOptions,
  uploadFile,
  uploadStream,
  uploadTree,
} from "./transfer.ts";
