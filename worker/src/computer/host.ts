/**
 * The state one Computer DO instance shares with its route handlers: storage, the lazily
 * opened vfs, the record, the GC alarm and the way to wipe everything on delete.
 */
import { createHash } from "node:crypto";
import { durableObjectSql, openVfs, type Vfs } from "@computer/vfs";
import type { Env } from "../env.ts";
import { ApiError } from "../http/errors.ts";
import { REGISTRY_NAME, type Registry } from "../registry/registry.ts";
import { sweepForkSnapshots } from "./fork.ts";
import { type ComputerRecord, RecordStore } from "./record.ts";

/** How often the alarm runs the vfs GC (blobs no longer referenced, pruned change records). */
export const GC_INTERVAL_MS = 60 * 60 * 1000;
/** Age after which a fork snapshot is considered abandoned. */
const FORK_SNAPSHOT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Per-instance state of a Computer DO. */
export class ComputerHost {
  readonly ctx: DurableObjectState;
  readonly env: Env;
  readonly records: RecordStore;
  #vfs: Vfs | undefined;
  #alarmChecked = false;

  constructor(ctx: DurableObjectState, env: Env) {
    this.ctx = ctx;
    this.env = env;
    this.records = new RecordStore(ctx.storage.sql);
  }

  /** The computer's filesystem, opened (and migrated) on first use. */
  vfs(): Vfs {
    this.#vfs ??= openVfs(durableObjectSql(this.ctx.storage), { sha256 });
    return this.#vfs;
  }

  /** The record of a live computer; 404 ENOENT if it does not exist (or is still being forked into). */
  requireComputer(): ComputerRecord {
    const record = this.records.get();
    if (record === undefined || record.state !== "ready") throw new ApiError("ENOENT", "no such computer");
    return record;
  }

  /** The Registry DO stub. */
  registry(): DurableObjectStub<Registry> {
    return this.env.REGISTRY.getByName(REGISTRY_NAME);
  }

  /** Call after every mutation: makes sure the hourly GC alarm is scheduled. */
  async touched(): Promise<void> {
    if (this.#alarmChecked) return;
    if ((await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm(Date.now() + GC_INTERVAL_MS);
    }
    this.#alarmChecked = true;
  }

  /** Runs the GC if the computer exists and reschedules; a deleted computer's alarm stops. */
  async runGc(): Promise<void> {
    if (this.records.get()?.state !== "ready") return;
    const vfs = this.vfs();
    sweepForkSnapshots(vfs, Date.now(), FORK_SNAPSHOT_MAX_AGE_MS);
    vfs.gc();
    await this.ctx.storage.setAlarm(Date.now() + GC_INTERVAL_MS);
  }

  /** Drops every table, the record and the alarm: the computer is gone. */
  async destroy(): Promise<void> {
    this.vfs().destroy();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.#vfs = undefined;
    this.#alarmChecked = false;
    this.records.reset();
  }
}
