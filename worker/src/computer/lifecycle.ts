/**
 * Creating, describing, updating and deleting a computer (PUT/GET/DELETE /v1/computers/:id).
 * Creation writes the record and the quota in one transaction, then registers the id.
 */
import type { ComputerInfo } from "@computer/sdk/contract";

import { announceLimits, computerLimits } from "../container/container-limits.ts";
import { parseEgress } from "../egress/egress.ts";
import { ApiError } from "../http/errors.ts";
import { optionalInteger, readJsonObject } from "../http/json-body.ts";
import type { ComputerContext } from "./context.ts";
import { type ComputerRecord, DEFAULT_QUOTA_BYTES, MAX_QUOTA_BYTES, newTokenNonce } from "./record.ts";

/** A computer as the API shows it: the contract's ComputerInfo. */
export type ComputerJson = ComputerInfo;

/** The API view of the live computer in `host`. */
export function computerJson(host: ComputerContext, record: ComputerRecord): ComputerJson {
  const usage = host.vfs().usage();
  return {
    id: record.id,
    createdAt: record.createdAt,
    quotaBytes: usage.quotaBytes,
    usedBytes: usage.usedBytes,
    egress: record.egress,
  };
}

/** PUT: creates the computer (201) or updates its quota and egress (200). */
export async function putComputer(host: ComputerContext, id: string, request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  const quotaBytes = optionalInteger(body, "quotaBytes", 0, MAX_QUOTA_BYTES);
  const egress = body.egress === undefined ? undefined : parseEgress(body.egress);
  const existing = host.records.get();
  if (existing?.state === "importing")
    throw new ApiError("EBUSY", "a fork into this computer is in progress");
  const vfs = host.vfs();
  if (existing !== undefined) {
    const updated = { ...existing, egress: egress ?? existing.egress };
    host.ctx.storage.transactionSync(() => {
      host.records.put(updated);
      if (quotaBytes !== undefined) vfs.setQuota(quotaBytes);
    });
    // A running container learns the new room at once (statfs, ENOSPC in write()).
    if (quotaBytes !== undefined && existing.state === "ready") {
      await announceLimits(host.execs().link.current(), computerLimits(vfs));
    }
    await host.registry().add(id, existing.createdAt);
    return Response.json(computerJson(host, updated), { status: 200 });
  }
  const record: ComputerRecord = {
    id,
    createdAt: new Date().toISOString(),
    egress: egress ?? "none",
    tokenNonce: newTokenNonce(),
    state: "ready",
  };
  host.ctx.storage.transactionSync(() => {
    host.records.put(record);
    vfs.setQuota(quotaBytes ?? DEFAULT_QUOTA_BYTES);
  });
  // Two durable writes in two objects (the registry's row, this one's GC alarm): side by side,
  // so a new computer waits for one commit, not two in a row (every cold start begins here).
  await Promise.all([host.registry().add(id, record.createdAt), host.touched()]);
  return Response.json(computerJson(host, record), { status: 201 });
}

/** GET: the computer, or 404. */
export function getComputer(host: ComputerContext): Response {
  return Response.json(computerJson(host, host.requireComputer()));
}

/**
 * DELETE: drops every file, checkpoint, token generation and the record, then unregisters.
 * Also clears a fork target left half-imported. 404 if there is nothing to delete.
 */
export async function deleteComputer(host: ComputerContext, id: string): Promise<Response> {
  if (host.records.get() === undefined) throw new ApiError("ENOENT", "no such computer");
  await host.destroy();
  await host.registry().remove(id);
  return new Response(null, { status: 204 });
}
