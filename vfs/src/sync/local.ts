/**
 * One side of a sync as the engine sees it: the vfs, the database under it (shared with the
 * ledger so both commit in one transaction), which side this is, and the helpers every stage
 * uses to read a path's state and fingerprint it.
 */
import type { SqlLike } from "../sql.ts";
import type { Vfs } from "../vfs.ts";
import { Ledger } from "./ledger.ts";
import { fingerprint, type PathState, readState, toHex } from "./state.ts";
import type { Side } from "./wire.ts";

/** Attributes of a directory as stored with its base row, to recreate a missing parent faithfully. */
export interface DirAttributes {
  mode: number;
  uid: number;
  gid: number;
  /** [name, hex value] pairs. */
  xattrs: [string, string][];
}

/** The seams a host injects into sync. */
export interface SyncOptions {
  /** Which end this is; decides the winner of conflicts (see conflict.ts). */
  side: Side;
  /** Hex sha-256 (the same function the vfs was opened with). */
  sha256(data: Uint8Array): string;
  /** Random ids for endpoints and batches; default `crypto.randomUUID()`. */
  randomId?(): string;
  /**
   * This side takes large files' blobs as placeholders and fetches their bytes when they are
   * first read (computerd's mirror; SyncHello.fetches).
   */
  fetches?: boolean;
}

/** The local state one sync endpoint works on. */
export class LocalSide {
  readonly vfs: Vfs;
  readonly sql: SqlLike;
  readonly ledger: Ledger;
  readonly side: Side;
  readonly sha256: (data: Uint8Array) => string;
  readonly randomId: () => string;
  /** Whether this side takes placeholders (SyncOptions.fetches). */
  readonly fetches: boolean;
  /** This endpoint's stable id (created with its ledger). */
  readonly id: string;

  /** `sql` must be the very SqlLike the vfs was opened with, so transactions nest into one. */
  constructor(vfs: Vfs, sql: SqlLike, options: SyncOptions) {
    this.vfs = vfs;
    this.sql = sql;
    this.ledger = new Ledger(sql);
    this.side = options.side;
    this.sha256 = options.sha256;
    this.randomId = options.randomId ?? (() => crypto.randomUUID());
    this.fetches = options.fetches === true;
    let id = this.ledger.meta("id");
    if (id === undefined) {
      id = this.randomId();
      this.ledger.setMeta("id", id);
    }
    this.id = id;
  }

  /**
   * The literal state at `path` (undefined: nothing there). `parentIsDir`: the caller knows the
   * parent is a real directory (no symlink on the way), which saves resolving it again.
   */
  read(path: string, parentIsDir = false): PathState | undefined {
    return readState(this.vfs, this.sql, path, parentIsDir);
  }

  fp(state: PathState | undefined): string {
    return fingerprint(state, this.sha256);
  }

  /** Records `state` (with fingerprint `fp`) as agreed at `path`. */
  agree(path: string, state: PathState | undefined, fp: string): void {
    this.ledger.setBase(path, fp, dirAttributes(state));
  }
}

/** The stored form of a directory's attributes (null for anything else). */
export function dirAttributes(state: PathState | undefined): string | null {
  if (state?.stat.type !== "dir") return null;
  const attrs: DirAttributes = {
    mode: state.stat.mode,
    uid: state.stat.uid,
    gid: state.stat.gid,
    xattrs: (state.xattrs ?? []).map((x) => [x.name, toHex(x.value)]),
  };
  return JSON.stringify(attrs);
}
