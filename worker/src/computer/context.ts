/**
 * The state one Computer DO instance shares with its route handlers: storage, the lazily
 * opened vfs, the record, the exec subsystem, the shared alarm (GC, sync retry) and the way
 * to wipe everything on delete.
 */
import { createHash } from "node:crypto";
import {
  DirectoryCache,
  durableObjectSql,
  openVfs,
  type SqlLike,
  type SqlValue,
  type Vfs,
} from "@computer/vfs";
import { artifactPublisher } from "../artifacts/guest-publisher.ts";
import type { Env } from "../env.ts";
import { ExecSubsystem } from "../exec/exec-subsystem.ts";
import { ApiError } from "../http/errors.ts";
import { PreviewStore } from "../previews/preview-store.ts";
import { REGISTRY_NAME, type Registry } from "../registry/registry.ts";
import type { TerminalManager } from "../terminals/terminal-manager.ts";
import { terminalManagerFor } from "../terminals/terminal-routes.ts";
import { AlarmSchedule } from "./alarms.ts";
import { sweepForkSnapshots } from "./fork.ts";
import { type ComputerRecord, RecordStore } from "./record.ts";

/** How often the alarm runs the vfs GC (blobs no longer referenced, pruned change records). */
export const GC_INTERVAL_MS = 60 * 60 * 1000;
/** Age after which a fork snapshot is considered abandoned. */
const FORK_SNAPSHOT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Storage key of the origin the computer's API was last called on. */
const API_ORIGIN_KEY = "api:origin";

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Per-instance state of a Computer DO. */
export class ComputerContext {
  readonly ctx: DurableObjectState;
  readonly env: Env;
  readonly records: RecordStore;
  readonly alarms: AlarmSchedule;
  /** The computer's open previews (ports reachable from outside). */
  readonly previews: PreviewStore;
  /** Hex sha-256, the hash the vfs and sync are opened with. */
  readonly sha256 = sha256;
  /** Statements the vfs and sync ran in this instance (a container exec reports its difference). */
  readonly sqlCounts = { statements: 0 };
  #sql: SqlLike | undefined;
  #vfs: Vfs | undefined;
  /**
   * The vfs's directories by name (vfs/src/dir-cache.ts): every change of the tree in this
   * object goes through this instance's vfs (the API, the runtimes, sync, checkpoints, fork
   * imports), and a transaction of `sql()` that throws (its rollback is one the vfs cannot see)
   * drops it; the object's own `transactionSync` calls (lifecycle.ts, fork-target.ts) hold only
   * the record and the quota. A sync batch then finds the directories an earlier batch met
   * without a statement.
   */
  readonly #directories = new DirectoryCache();
  #execs: ExecSubsystem | undefined;
  #terminals: TerminalManager | undefined;
  #alarmChecked = false;

  constructor(ctx: DurableObjectState, env: Env) {
    this.ctx = ctx;
    this.env = env;
    this.records = new RecordStore(ctx.storage.sql);
    this.alarms = new AlarmSchedule(ctx.storage);
    this.previews = new PreviewStore(ctx.storage.sql);
  }

  /** The SqlLike the vfs is opened with (sync must share it so transactions nest). */
  sql(): SqlLike {
    if (this.#sql === undefined) {
      const sql = durableObjectSql(this.ctx.storage);
      const counts = this.sqlCounts;
      const directories = this.#directories;
      this.#sql = {
        exec<T>(query: string, ...bindings: SqlValue[]): T[] {
          counts.statements++;
          return sql.exec<T>(query, ...bindings);
        },
        transaction<T>(fn: () => T): T {
          try {
            return sql.transaction(fn);
          } catch (err) {
            // Rolled back (or joined to an outer transaction that may be): a directory created
            // inside and cached by name may be gone, its inode number handed out again.
            directories.clear();
            throw err;
          }
        },
      };
    }
    return this.#sql;
  }

  /**
   * Remembers the origin `request` came in on: the base computerd dials back to (unless
   * COMPUTERD_DIAL_BASE names one) and the origin of links minted from inside a runtime.
   */
  noteOrigin(request: Request): void {
    const origin = new URL(request.url).origin;
    const kv = this.ctx.storage.kv;
    if (kv.get<string>(API_ORIGIN_KEY) !== origin) kv.put(API_ORIGIN_KEY, origin);
  }

  /** The origin the computer's API was last called on (noteOrigin), if any. */
  apiOrigin(): string | undefined {
    return this.ctx.storage.kv.get<string>(API_ORIGIN_KEY);
  }

  /** The computer's filesystem, opened (and migrated) on first use. */
  vfs(): Vfs {
    this.#vfs ??= openVfs(this.sql(), { sha256, directoryCache: this.#directories });
    return this.#vfs;
  }

  /** The exec subsystem (journal, runtimes, link to computerd), created on first use. */
  /** The terminals (created on first use; they live in this instance's memory). */
  terminals(): TerminalManager {
    this.#terminals ??= terminalManagerFor(this);
    return this.#terminals;
  }

  execs(): ExecSubsystem {
    if (this.#execs === undefined) {
      this.#execs = new ExecSubsystem(this);
      this.#execs.useArtifacts(artifactPublisher(this));
    }
    return this.#execs;
  }

  /** The id of the live computer (404 ENOENT if it does not exist). */
  computerId(): string {
    return this.requireComputer().id;
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
    if (this.alarms.dueAt("gc") === undefined) await this.alarms.schedule("gc", Date.now() + GC_INTERVAL_MS);
    this.#alarmChecked = true;
  }

  /** The alarm: runs every due job (GC, sync retry), then re-arms for the next one. */
  async runAlarm(): Promise<void> {
    for (const job of this.alarms.takeDue(Date.now())) {
      if (job === "gc") await this.runGc();
      else if (job === "sync") await this.execs().retrySync();
    }
    await this.alarms.rearm();
  }

  /** Runs the GC if the computer exists and reschedules; a deleted computer's GC stops. */
  async runGc(): Promise<void> {
    if (this.records.get()?.state !== "ready") return;
    const vfs = this.vfs();
    sweepForkSnapshots(vfs, Date.now(), FORK_SNAPSHOT_MAX_AGE_MS);
    vfs.gc();
    await this.alarms.schedule("gc", Date.now() + GC_INTERVAL_MS);
  }

  /**
   * Stops execs and the container, drops every table (the previews with them: their URLs
   * answer 404), the record and the alarm: the computer is gone.
   */
  async destroy(): Promise<void> {
    this.#terminals?.closeAll();
    if (this.records.get()?.state === "ready") await this.execs().destroy();
    this.#execs = undefined;
    this.vfs().destroy();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.#vfs = undefined;
    this.#alarmChecked = false;
    this.records.reset();
    this.previews.reset();
  }
}
