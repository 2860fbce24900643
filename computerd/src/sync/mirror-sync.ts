/**
 * computerd's sync engine: the mirror's SyncEndpoint behind DaemonApi's sync half. Pushes from
 * the Durable Object are applied to the mirror (after storing the mount's dirty data, so the
 * merge sees every local write) and committed before they are answered, then the mount's and
 * the kernel's caches of the changed paths are dropped. Uploads go through one SyncLink per
 * dial-back link: reconciled (hello) on every connect, streamed while commands run (the
 * Uploader), completed by the fence: flush everything into the mirror, drain, answer the DO's
 * revision. The DO's quota is the mirror's (setLimits), except while a push is applied.
 */
import { FsError } from "@computer/vfs";
import type {
  ApplyResult,
  BatchLimits,
  BlobData,
  ComputerLimits,
  DrainOptions,
  FenceResult,
  SyncBatch,
  SyncConflict,
  SyncEndpoint,
  SyncHello,
} from "@computer/vfs/sync";
import { DEFAULT_LIMITS, newSyncCounters, SyncLink } from "@computer/vfs/sync";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { Mount } from "../mount/backend.ts";
import type { DaemonSync } from "../server/daemon-api.ts";
import type { Link } from "../server/dial-back-link.ts";
import { AheadHashes } from "./ahead-hashes.ts";
import type { ChunkFetcher } from "./chunk-fetcher.ts";
import { DoPeer } from "./do-peer.ts";
import { SettledRev } from "./settled-rev.ts";
import type { UploadOutcome } from "./uploader.ts";

/** What the engine works on. */
export interface MirrorSyncOptions {
  mirror: Mirror;
  mount: Mount;
  /** Opened over `mirror.vfs` and the very same `mirror.sql`. */
  endpoint: SyncEndpoint;
  /** Fetches placeholder chunks from the DO over the current link (when the endpoint `fetches`). */
  chunks?: ChunkFetcher;
  /** Batches per background upload before it yields (default 4). */
  uploadBatches?: number;
  /** Size of upload batches (default: UPLOAD_LIMITS). */
  limits?: Partial<BatchLimits>;
  /** Background uploads send changes at least this old (default UPLOAD_SETTLE_MS)… */
  settleMs?: number;
  /** …or any change once writes have waited this long (default UPLOAD_MAX_LAG_MS). */
  maxLagMs?: number;
  log(message: string, err?: unknown): void;
  /** Told about every completed fence (for the daemon's event log). */
  onFence?(stats: FenceStats): void;
}

/** What one fence did. */
export interface FenceStats {
  /** Wall time of the whole fence. */
  ms: number;
  /** Of which storing the mount's buffered writes. */
  flushMs: number;
  /** Of which waiting for the Durable Object (its applying plus round trips). */
  waitedMs: number;
  /** Of which waiting for the chunks already on their way ahead (sent while the command ran). */
  aheadMs: number;
  /** Batches and changes the fence itself sent (the rest went while the command ran). */
  batches: number;
  changes: number;
  /** Bytes of blobs the fence itself sent (inline or ahead of its batches). */
  blobBytes: number;
  rev: number;
}

/**
 * computerd's upload batches: eight times the engine's default in changes. Each batch is a few
 * round trips (missingBlobs, putBlobs, applyBatch) and one DO transaction; while a command runs
 * beside the upload on the same CPUs, those fixed costs are what kept the upload behind an
 * `npm install` (500 changes per batch left ~14,000 of its ~32,000 to the fence: 1.7–2.1 s;
 * 4,000 leave ~3,000: 0.2–0.3 s; docs/BENCH.md, "Upload batches of 4,000 changes"). A batch
 * still carries at most 1 MiB of blobs inline; the rest go as HTTP bodies before it.
 */
export const UPLOAD_LIMITS: BatchLimits = { ...DEFAULT_LIMITS, maxChanges: 4000, maxScan: 40_000 };

/**
 * How old a change must be before a background upload sends it: a file then goes once written,
 * its mode and times set, not in each state between. The fence sends everything. Kept short:
 * 500 ms halved the DO's statements over an `npm install` but not its time (docs/BENCH.md,
 * "Upload batches of 4,000 changes", and "The upload's settle and its bound").
 */
export const UPLOAD_SETTLE_MS = 100;

/**
 * How long writes wait at most for a background upload, settled or not: a path rewritten more
 * often than the settle (a log, a progress file) never gets old enough, and without this bound
 * reached the DO only at the fence.
 */
export const UPLOAD_MAX_LAG_MS = 1000;

/** The upload direction over one link. */
interface Upload {
  link: Link;
  sync: SyncLink;
  peer: DoPeer;
}

/** Paths whose cached state a batch may have changed. */
export function touchedPaths(batch: SyncBatch, result: ApplyResult): string[] {
  // The last batch of a full listing also deletes what it did not list: drop everything.
  if (batch.full?.last) return ["/"];
  const paths = new Set(batch.changes.map((change) => change.path));
  for (const conflict of result.conflicts) {
    paths.add(conflict.path);
    if (conflict.copy !== undefined) paths.add(conflict.copy);
  }
  return [...paths];
}

/** DaemonSync over the mirror. */
export class MirrorSync implements DaemonSync {
  readonly #options: MirrorSyncOptions;
  #upload: Upload | undefined;
  /** Conflicts reported by uploads since the last fence (the fence reports them). */
  readonly #conflicts: SyncConflict[] = [];
  /** Round trips to the DO and the bytes they carried, over every link so far. */
  readonly rpc = newSyncCounters();
  /** What background uploads may send: the mirror's revisions as they were `settleMs` ago (or now, past `maxLagMs`). */
  readonly #settled: SettledRev;

  /** Chunks of files still being written, sent ahead of their batch (ahead-hashes.ts). */
  readonly #ahead: AheadHashes;
  /** The send-ahead in flight: the fence waits for it rather than send the same blobs. */
  #sendingAhead: Promise<unknown> | undefined;

  constructor(options: MirrorSyncOptions) {
    this.#options = options;
    this.#settled = new SettledRev(
      options.settleMs ?? UPLOAD_SETTLE_MS,
      options.maxLagMs ?? UPLOAD_MAX_LAG_MS,
    );
    this.#ahead = new AheadHashes(options.mirror.vfs);
  }

  get endpointId(): string {
    return this.#options.endpoint.id;
  }

  /** True while a link to the DO is open. */
  get linked(): boolean {
    return this.#upload !== undefined;
  }

  #commit(): void {
    this.#options.mirror.sql.commit();
  }

  /**
   * A new dial-back link: uploads go through it from now on. Reconciles at once (hello) and
   * uploads whatever is pending, e.g. the writes of a command whose fence never came.
   */
  onLink(link: Link): void {
    const peer = new DoPeer(link.remote, () => this.#commit(), this.rpc, link.blobs);
    const recent = this.#options.mirror.recent;
    const sync = new SyncLink(this.#options.endpoint, peer.peer, { inMemory: (hash) => recent.get(hash) });
    const upload: Upload = { link, sync, peer };
    this.#upload = upload;
    this.#ahead.reset();
    const chunks = this.#options.chunks;
    chunks?.connect({
      getBlobs: (hashes) => Promise.resolve(peer.peer.getBlobs(hashes)),
      releaseBlobs: (hashes, upTo) => Promise.resolve(peer.peer.releaseBlobs(hashes, upTo)),
    });
    void link.closed.then(() => {
      if (this.#upload !== upload) return;
      this.#upload = undefined;
      chunks?.connect(undefined);
    });
    void this.#drain(upload).catch((err: unknown) => {
      if (this.#upload === upload) this.#options.log("uploading after connect failed", err);
    });
  }

  #drainOptions(maxBatches?: number, untilRev?: number): DrainOptions {
    return {
      limits: { ...UPLOAD_LIMITS, ...this.#options.limits },
      ...(maxBatches === undefined ? {} : { maxBatches }),
      ...(untilRev === undefined ? {} : { untilRev }),
    };
  }

  /**
   * `upload` as it goes; when it fails, the pages held in memory go too, so the retry reads the
   * blobs from the mirror (whatever the failure was, it cannot come from the same bytes again).
   */
  async #uploading<T>(upload: Promise<T>): Promise<T> {
    try {
      return await upload;
    } catch (err) {
      this.#options.mirror.recent.clear();
      throw err;
    }
  }

  async #drain(upload: Upload, maxBatches?: number, untilRev?: number): Promise<number> {
    const report = await this.#uploading(upload.sync.drain(this.#drainOptions(maxBatches, untilRev)));
    this.#commit();
    this.#conflicts.push(...report.conflicts);
    return report.batches;
  }

  /**
   * One bounded background upload (the Uploader's) of the changes at least `settleMs` old;
   * resolves true when more may be waiting, "settling" when newer changes wait for the next.
   * A send-ahead that sent chunks also answers true: the command is likely still writing that
   * file, and the next round takes what it stored meanwhile instead of pausing for the interval
   * (the DO would sit idle then, and the fence would carry what piled up). Without a link there
   * is nothing to do: the next connect uploads.
   */
  async uploadSome(): Promise<UploadOutcome> {
    const upload = this.#upload;
    if (!upload) return false;
    const rev = this.#options.mirror.vfs.rev();
    const untilRev = this.#settled.sample(performance.now(), rev);
    if (untilRev === undefined) return "settling";
    const batches = this.#options.uploadBatches ?? 4;
    if ((await this.#drain(upload, batches, untilRev)) >= batches) return true;
    if (untilRev >= rev) return false;
    return (await this.#sendAhead(upload, untilRev)) > 0 ? true : "settling";
  }

  /**
   * Sends the stored chunks of large files changed after `untilRev` (still being written) ahead;
   * answers how many it looked at that had not gone yet.
   */
  async #sendAhead(upload: Upload, untilRev: number): Promise<number> {
    const hashes = this.#ahead.after(untilRev);
    if (hashes.length === 0) return 0;
    const sending = this.#uploading(upload.sync.sendAhead(hashes));
    this.#sendingAhead = sending;
    try {
      await sending;
      this.#ahead.sent(hashes);
      this.#options.mirror.recent.forget(hashes);
    } finally {
      if (this.#sendingAhead === sending) this.#sendingAhead = undefined;
    }
    return hashes.length;
  }

  hello(hello: SyncHello): SyncHello {
    const reply = this.#options.endpoint.hello(hello);
    this.#commit();
    return reply;
  }

  missingBlobs(hashes: string[]): string[] {
    return this.#options.endpoint.missingBlobs(hashes);
  }

  putBlobs(blobs: BlobData[]): void {
    this.#options.endpoint.putBlobs(blobs);
    this.#commit();
  }

  getBlobs(hashes: string[]): BlobData[] {
    return this.#options.endpoint.getBlobs(hashes);
  }

  releaseBlobs(hashes: string[], upTo: number): void {
    this.#options.endpoint.releaseBlobs(hashes, upTo);
    this.#commit();
  }

  /**
   * The computer's limits from the DO: the mirror's quota becomes the computer's, so the
   * mount's statfs shows it and a write past it fails with ENOSPC in the syscall. Anything but
   * a non-negative integer or null is EINVAL and changes nothing.
   */
  setLimits(limits: ComputerLimits): void {
    const quota: unknown = limits?.quotaBytes;
    if (quota !== null && !(typeof quota === "number" && Number.isSafeInteger(quota) && quota >= 0)) {
      throw new FsError("EINVAL", "quota", undefined, "quotaBytes must be a non-negative integer or null");
    }
    this.#options.mount.setQuota(quota);
    this.#commit();
  }

  /**
   * Runs `fn` with the mirror's quota lifted. What the DO pushes is already stored there (the
   * DO is the authority); the container's own unsynced writes may fill the room meanwhile, and
   * the DO's check of their upload settles that, not a refused push. The quota goes back
   * through the mount, so the room the FUSE loop may answer writes in is what the push left.
   */
  #unlimited<T>(fn: () => T): T {
    const vfs = this.#options.mirror.vfs;
    const quota = vfs.usage().quotaBytes;
    if (quota === null) return fn();
    vfs.setQuota(null);
    try {
      return fn();
    } finally {
      this.#options.mount.setQuota(quota);
    }
  }

  /**
   * A push from the DO. The mount's dirty data goes into the mirror first (so a path changed
   * on both sides is seen as a conflict, not overwritten); the result is committed before it
   * is answered (the DO then counts the batch as applied); caches of the touched paths go.
   */
  async applyBatch(batch: SyncBatch): Promise<ApplyResult> {
    const { mount, endpoint } = this.#options;
    // The FUSE loop's creates wait until the kernel has heard of the batch: one answered before
    // the fence is in the mirror first, none can take a name the batch brings meanwhile.
    const release = mount.holdCreates();
    try {
      await mount.flushAll();
      const result = this.#unlimited(() => endpoint.applyBatch(batch));
      this.#commit();
      if (result.status === "applied") {
        if (batch.placeholders?.length) this.#options.chunks?.refresh();
        await mount.invalidate(touchedPaths(batch, result));
      }
      return result;
    } finally {
      release();
    }
  }

  /**
   * After a command exited (its descriptors are closed): every write still buffered in the
   * mount goes into the mirror, then everything not yet uploaded is sent. Resolves with the
   * DO's revision once it has applied it all; rejects when the link fails (the DO leaves the
   * sync pending and fences again later).
   */
  async fence(): Promise<FenceResult> {
    const upload = this.#upload;
    if (!upload) throw new Error("computerd: no link to the Durable Object");
    const started = performance.now();
    const waited = upload.peer.waitedMs;
    await this.#options.mount.flushAll();
    const flushMs = performance.now() - started;
    // Blobs already on their way ahead need not be sent again (a failure: the drain sends them).
    await this.#sendingAhead?.catch(() => undefined);
    const aheadMs = performance.now() - started - flushMs;
    const report = await this.#uploading(upload.sync.drain(this.#drainOptions()));
    this.#commit();
    // The DO has every page stored so far: none need be held for it any longer.
    this.#options.mirror.recent.clear();
    const conflicts = [...this.#conflicts.splice(0), ...report.conflicts];
    // Sent nothing itself: the DO had all of it by its answer to the last upload. The DO reports
    // its own revision when later (the DO's LinkSession.fence), so no round trip asks it here.
    const rev = report.rev ?? upload.sync.appliedRev;
    const ms = performance.now() - started;
    const waitedMs = upload.peer.waitedMs - waited;
    const { batches, changes, blobBytes } = report;
    this.#options.onFence?.({ ms, flushMs, waitedMs, aheadMs, batches, changes, blobBytes, rev });
    return { rev, conflicts };
  }

  /**
   * On shutdown, once commands are gone: flush the mount and make a last upload, bounded by
   * `timeoutMs`. Failures are only logged: the mirror keeps everything and the next start
   * uploads it.
   */
  async finalUpload(timeoutMs: number): Promise<void> {
    try {
      await this.#options.mount.flushAll();
    } catch (err) {
      this.#options.log("the final flush failed", err);
    }
    const upload = this.#upload;
    if (!upload) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await Promise.race([this.#drain(upload), timeout]);
    } catch (err) {
      this.#options.log("the final upload failed; the next start uploads", err);
    } finally {
      clearTimeout(timer);
    }
  }
}
