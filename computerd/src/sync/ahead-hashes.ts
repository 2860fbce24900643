/**
 * Which chunks a background upload sends ahead: those the mirror has stored of large files
 * changed too recently to be sent (a command still writing them, whose feed record moves on
 * with every page stored, so it settles only once the command is done). Sent to the Durable
 * Object by hash before any batch names them, they leave the fence after the command only the
 * file's metadata (SyncLink.sendAhead). Each hash goes once per link.
 */
import type { Vfs } from "@computer/vfs";

/** Files smaller than this go whole with their batch anyway (one round trip). */
export const AHEAD_FILE_BYTES = 4 << 20;
/** Feed entries looked at per upload (the newest are the files being written). */
const AHEAD_PATHS = 64;
/** Hashes remembered as sent; past this the oldest are forgotten (at worst, asked again). */
const SENT_MAX = 65_536;

export class AheadHashes {
  readonly #vfs: Vfs;
  readonly #sent = new Set<string>();

  constructor(vfs: Vfs) {
    this.#vfs = vfs;
  }

  /** The stored chunks of large files changed after revision `rev`, not sent yet over this link. */
  after(rev: number): string[] {
    const hashes = new Set<string>();
    for (const change of this.#vfs.changes(String(rev), { limit: AHEAD_PATHS }).changes) {
      if (change.stat?.type !== "file" || change.stat.size < AHEAD_FILE_BYTES) continue;
      for (const hash of change.chunks ?? []) if (hash !== "" && !this.#sent.has(hash)) hashes.add(hash);
    }
    return [...hashes];
  }

  /** Notes `hashes` as sent over this link. */
  sent(hashes: readonly string[]): void {
    for (const hash of hashes) {
      if (this.#sent.size >= SENT_MAX) this.#sent.delete(this.#sent.values().next().value as string);
      this.#sent.add(hash);
    }
  }

  /** A new link: the peer may have lost what an earlier one got (nothing to assume). */
  reset(): void {
    this.#sent.clear();
  }
}
