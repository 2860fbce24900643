/**
 * `POST /v1/computers/:id/fork { to, checkpoint? }`, driven by the source DO: it exports the
 * tree page by page and, over DO RPC, sends the target only the blobs it lacks, then the page.
 * Without a named checkpoint a temporary one pins a consistent snapshot for the copy.
 */

import { COMPUTER_ID } from "@computer/sdk/computer-id";
import type { TreeRecord, Vfs } from "@computer/vfs";
import { ApiError } from "../http/errors.ts";
import { optionalString, readJsonObject, requireString } from "../http/json-body.ts";
import { CHECKPOINT_NAME } from "../http/route.ts";
import type { Computer } from "./computer.ts";
import type { ComputerContext } from "./context.ts";
import type { BlobTransfer } from "./fork-target.ts";
import { unwrap } from "./rpc-result.ts";

/** Checkpoints named with this prefix are temporary fork snapshots, hidden from the API. */
export const FORK_SNAPSHOT_PREFIX = "fork-tmp-";
/** Tree records per exported page. */
const PAGE_RECORDS = 500;
/** Blob bytes per RPC call (well under the RPC message limit). */
const BLOB_BATCH_BYTES = 8 * 1024 * 1024;

function chunkHashes(records: TreeRecord[]): string[] {
  const hashes = new Set<string>();
  for (const { table, row } of records) {
    if (table === "chunks" && typeof row.hash === "string" && row.hash !== "") hashes.add(row.hash);
  }
  return [...hashes];
}

async function sendBlobs(
  vfs: Vfs,
  target: DurableObjectStub<Computer>,
  importId: string,
  hashes: string[],
): Promise<void> {
  let batch: BlobTransfer[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length > 0) unwrap(await target.forkPutBlobs(importId, batch));
    batch = [];
    bytes = 0;
  };
  for (const hash of hashes) {
    const data = vfs.getBlob(hash);
    if (data === undefined) throw new ApiError("EIO", `blob ${hash} is missing from the source`);
    batch.push({ hash, data });
    bytes += data.byteLength;
    if (bytes >= BLOB_BATCH_BYTES) await flush();
  }
  await flush();
}

async function copyTree(
  vfs: Vfs,
  target: DurableObjectStub<Computer>,
  importId: string,
  checkpoint: string,
): Promise<void> {
  let after: string | undefined;
  do {
    const page = vfs.exportTree({ checkpoint, after, limit: PAGE_RECORDS });
    const hashes = chunkHashes(page.records);
    if (hashes.length > 0) {
      const missing = unwrap(await target.forkMissingBlobs(importId, hashes));
      await sendBlobs(vfs, target, importId, missing);
    }
    unwrap(await target.forkImport(importId, page.records));
    after = page.next;
  } while (after !== undefined);
}

/** Forks the computer in `host` into a new computer → 201 with the new computer. */
export async function forkComputer(host: ComputerContext, request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  const record = host.requireComputer();
  const to = requireString(body, "to");
  if (!COMPUTER_ID.test(to))
    throw new ApiError("EINVAL", `invalid computer id 'to': must match ${COMPUTER_ID.source}`);
  if (to === record.id) throw new ApiError("EINVAL", "cannot fork a computer into itself");
  const checkpoint = optionalString(body, "checkpoint");
  const vfs = host.vfs();
  if (checkpoint !== undefined) {
    if (!CHECKPOINT_NAME.test(checkpoint) || checkpoint.startsWith(FORK_SNAPSHOT_PREFIX)) {
      throw new ApiError("EINVAL", "invalid checkpoint name");
    }
    if (!vfs.listCheckpoints().some((c) => c.name === checkpoint)) {
      throw new ApiError("ENOENT", `no checkpoint '${checkpoint}'`);
    }
  }
  const snapshot = checkpoint ?? `${FORK_SNAPSHOT_PREFIX}${crypto.randomUUID().slice(0, 8)}`;
  if (checkpoint === undefined) vfs.checkpoint(snapshot);
  try {
    const target = host.env.COMPUTER.getByName(to);
    const importId = unwrap(
      await target.forkBegin(to, { quotaBytes: vfs.usage().quotaBytes, egress: record.egress }),
    );
    try {
      await copyTree(vfs, target, importId, snapshot);
      return Response.json(unwrap(await target.forkCommit(importId)), { status: 201 });
    } catch (err) {
      await abortQuietly(target, importId);
      throw err;
    }
  } finally {
    if (checkpoint === undefined) deleteSnapshot(vfs, snapshot);
  }
}

async function abortQuietly(target: DurableObjectStub<Computer>, importId: string): Promise<void> {
  try {
    await target.forkAbort(importId);
  } catch (err) {
    // The original failure is what the caller needs; a stuck target can still be DELETEd.
    console.error("could not abort fork import", err);
  }
}

function deleteSnapshot(vfs: Vfs, name: string): void {
  try {
    vfs.deleteCheckpoint(name);
  } catch (err) {
    // The source may have been deleted meanwhile; the alarm sweeps any leftover snapshot.
    console.warn("could not delete fork snapshot", name, err);
  }
}

/** Deletes fork snapshots older than `maxAgeMs` (left behind by a fork that died midway). */
export function sweepForkSnapshots(vfs: Vfs, nowMs: number, maxAgeMs: number): void {
  for (const info of vfs.listCheckpoints()) {
    if (info.name.startsWith(FORK_SNAPSHOT_PREFIX) && nowMs - Date.parse(info.createdAt) > maxAgeMs) {
      vfs.deleteCheckpoint(info.name);
    }
  }
}
