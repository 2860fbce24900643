/**
 * The receiving side of a fork, run inside the new computer's DO: it exists in state
 * `importing` (invisible to the API) while the source sends blobs and tree pages, and
 * becomes `ready` on commit. Every call carries the import id that began the import.
 */
import type { TreeRecord } from "@computer/vfs";
import type { Egress } from "../egress/egress.ts";
import { ApiError } from "../http/errors.ts";
import type { ComputerContext } from "./context.ts";
import { type ComputerJson, computerJson } from "./lifecycle.ts";
import { type ComputerRecord, newTokenNonce } from "./record.ts";

/** Settings the new computer inherits from its source. */
export interface ForkSettings {
  quotaBytes: number | null;
  egress: Egress;
}

/** A blob in transit, with the hash the source knows it by. */
export interface BlobTransfer {
  hash: string;
  data: Uint8Array;
}

/** Creates the computer in state `importing`; 409 EEXIST if the id is taken. Returns the import id. */
export function beginImport(host: ComputerContext, id: string, settings: ForkSettings): string {
  if (host.records.get() !== undefined) throw new ApiError("EEXIST", `computer '${id}' already exists`);
  const vfs = host.vfs();
  const importId = newTokenNonce();
  host.ctx.storage.transactionSync(() => {
    host.records.put({
      id,
      createdAt: new Date().toISOString(),
      egress: settings.egress,
      tokenNonce: importId,
      state: "importing",
    });
    vfs.setQuota(settings.quotaBytes);
  });
  return importId;
}

function importing(host: ComputerContext, importId: string): ComputerRecord {
  const record = host.records.get();
  if (record === undefined || record.state !== "importing" || record.tokenNonce !== importId) {
    throw new ApiError("EBUSY", "no such import in progress");
  }
  return record;
}

/** The hashes this computer lacks. */
export function missingBlobs(host: ComputerContext, importId: string, hashes: string[]): string[] {
  importing(host, importId);
  return host.vfs().missingBlobs(hashes);
}

/** Stores blobs, checking each against the hash it was sent as. */
export function putBlobs(host: ComputerContext, importId: string, blobs: BlobTransfer[]): void {
  importing(host, importId);
  const vfs = host.vfs();
  for (const { hash, data } of blobs) {
    if (vfs.putBlob(data) !== hash) throw new ApiError("EIO", `blob ${hash} arrived corrupted`);
  }
}

/** Applies one exported page (its blobs must already be here). */
export function importRecords(host: ComputerContext, importId: string, records: TreeRecord[]): void {
  importing(host, importId);
  host.vfs().importTree(records);
}

/** Finishes the import: the computer becomes live and is registered. */
export async function commitImport(host: ComputerContext, importId: string): Promise<ComputerJson> {
  const record = importing(host, importId);
  const vfs = host.vfs();
  const ready: ComputerRecord = { ...record, state: "ready", tokenNonce: newTokenNonce() };
  host.ctx.storage.transactionSync(() => {
    vfs.finishImport();
    host.records.put(ready);
  });
  await host.registry().add(ready.id, ready.createdAt);
  await host.touched();
  return computerJson(host, ready);
}

/** Throws away a failed import (only the one `importId` began). */
export async function abortImport(host: ComputerContext, importId: string): Promise<void> {
  const record = host.records.get();
  if (record?.state === "importing" && record.tokenNonce === importId) await host.destroy();
}
