/**
 * computerd's blob upload, `POST /v1/computers/:id/_computerd/blobs`: the chunks of large files
 * a command wrote, as one body of blobs (vfs/src/sync/blob-stream.ts) instead of `putBlobs`
 * messages on the link, where workerd made each message a fresh zero-filled ArrayBuffer first.
 * The body is read into a buffer reused from body to body and stored a buffer's worth at a time
 * (two whole chunks, or many small blobs), each checked against its hash; the read between two
 * groups lets the DO commit, as a file's `PUT` does. A bad blob fails the upload (400 EINVAL):
 * the groups before it stay stored, named by nothing until a batch does, and the GC removes them
 * after its window like any blob sent ahead.
 */
import { readBlobGroups, type SyncEndpoint } from "@computer/vfs/sync";
import { ApiError } from "../http/errors.ts";

/** What an upload stored. */
export interface BlobsReceived {
  blobs: number;
  bytes: number;
}

/** Stores the blobs of `request`'s body through `endpoint` (checked against their hashes). */
export async function receiveBlobs(request: Request, endpoint: SyncEndpoint): Promise<Response> {
  if (request.method !== "POST") {
    throw new ApiError("ENOTSUP", `method ${request.method} not allowed here`, {
      headers: { Allow: "POST" },
    });
  }
  const received: BlobsReceived = { blobs: 0, bytes: 0 };
  if (request.body !== null) {
    for await (const group of readBlobGroups(request.body.getReader({ mode: "byob" }))) {
      endpoint.putBlobs(group);
      received.blobs += group.length;
      for (const blob of group) received.bytes += blob.data.length;
    }
  }
  return Response.json(received);
}
