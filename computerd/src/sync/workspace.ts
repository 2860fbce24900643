/**
 * The computer's workspace inside computerd: the mirror (the vfs on node:sqlite in STATE_DIR),
 * its mount at MOUNT_POINT (FUSE, or none), the sync engine over the same database, the
 * background uploader and the mirror's GC (mirror-gc.ts). `computerd serve` opens one at start and closes it on SIGTERM.
 */
import { sha256Hex } from "@computer/vfs/node";
import { type BatchLimits, type SyncCounters, SyncEndpoint } from "@computer/vfs/sync";
import type { Config } from "../config.ts";
import { sandboxHostUser } from "../exec/bwrap.ts";
import { ID_COUNT } from "../exec/rootfs-sandbox.ts";
import { startMirrorGc } from "../mirror/mirror-gc.ts";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { type Mount, openMount } from "../mount/backend.ts";
import { type Owner, type OwnerMap, offsetOwners, swapOwners } from "../mount/owner-map.ts";
import { ChunkFetcher } from "./chunk-fetcher.ts";
import { type FenceStats, MirrorSync } from "./mirror-sync.ts";
import { Uploader } from "./uploader.ts";

/** Owner of the computer's files in the vfs (the Durable Object's default owner). */
export const VFS_OWNER: Owner = { uid: 0, gid: 0 };

/** An open workspace. */
export interface Workspace {
  mirror: Mirror;
  mount: Mount;
  sync: MirrorSync;
  uploader: Uploader;
  /** Stops uploading, unmounts (flushing first) and closes the mirror. Idempotent. */
  close(): Promise<void>;
}

/** What the workspace asks of the daemon around it. */
export interface WorkspaceHooks {
  /** True while a command runs. */
  busy(): boolean;
  log(message: string, err?: unknown): void;
  /** Told about every completed fence. */
  onFence?(stats: FenceStats): void;
  /** Size of upload batches (default: the engine's). */
  limits?: Partial<BatchLimits>;
}

/** What a workspace did since it opened: FUSE requests by type, the mirror's SQL, the sync wire's round trips and bytes. */
export function workspaceCounters(workspace: Workspace): {
  fuse: Record<string, number>;
  sql: { statements: number; operations: number; commits: number };
  rpc: SyncCounters;
} {
  return {
    fuse: { ...workspace.mount.counters },
    sql: { ...workspace.mirror.sql.counters },
    rpc: { ...workspace.sync.rpc, calls: { ...workspace.sync.rpc.calls } },
  };
}

/** The user this daemon runs as. */
function daemonOwner(): Owner {
  return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

/**
 * The host user commands run as: under bubblewrap as root, the sandbox user (`sandboxUid`, its
 * own group too); otherwise the daemon's own user (`own`). The mount shows the vfs owner as
 * that user (see owner-map.ts).
 */
export function commandOwner(
  config: Pick<Config, "execSandbox" | "sandboxUid">,
  own: Owner = daemonOwner(),
): Owner {
  if (config.execSandbox !== "bwrap") return own;
  const sandbox = sandboxHostUser({ hostUid: config.sandboxUid }, own.uid === 0);
  return { uid: sandbox.uid ?? own.uid, gid: sandbox.gid ?? own.gid };
}

/** True when commands run as root of a user namespace over a root filesystem (rootfs-sandbox.ts). */
export function usesRootfs(
  config: Pick<Config, "execSandbox" | "sandboxRoot">,
  own: Owner = daemonOwner(),
): boolean {
  return config.execSandbox === "bwrap" && config.sandboxRoot !== "" && own.uid === 0;
}

/** The owner map of the mount, or undefined when commands run as the vfs owner. */
export function ownerMapFor(
  config: Pick<Config, "execSandbox" | "sandboxUid" | "sandboxRoot">,
  own: Owner = daemonOwner(),
): OwnerMap | undefined {
  if (usesRootfs(config, own)) return offsetOwners(config.sandboxUid, ID_COUNT);
  const kernel = commandOwner(config, own);
  if (kernel.uid === VFS_OWNER.uid && kernel.gid === VFS_OWNER.gid) return undefined;
  return swapOwners(VFS_OWNER, kernel);
}

/**
 * Completed pages of a file being written that the write-back stores without waiting for a
 * pause in its writes (write-back-options.ts): the DO then gets a stream's bytes within a few
 * MiB of the writer instead of the rest in the fence (docs/BENCH.md, "Moving bytes, sixth round").
 */
const STREAM_PAGES = 4;

/** Opens the mirror, mounts it (clearing a stale mount first) and wires the sync engine. */
export async function openWorkspace(config: Config, hooks: WorkspaceHooks): Promise<Workspace> {
  const mirror = openMirror(config.stateDir, { owner: VFS_OWNER });
  let mount: Mount;
  try {
    const owners = config.mountBackend === "none" ? undefined : ownerMapFor(config);
    mount = await openMount({
      backend: config.mountBackend,
      mirror,
      mountPoint: config.mountPoint,
      log: hooks.log,
      // The uploader sends a file being written as far as it is stored (ahead-hashes.ts).
      localFs: { streamPages: STREAM_PAGES },
      ...(owners ? { fuse: { owners } } : {}),
    });
  } catch (err) {
    mirror.close();
    throw err;
  }
  // The same SqlLike as the vfs: a batch's changes and its ledger rows commit together.
  const endpoint = new SyncEndpoint(mirror.vfs, mirror.sql, {
    side: "container",
    sha256: sha256Hex,
    fetches: true,
  });
  mirror.sql.commit();
  // Large files from the DO arrive as placeholders; the mount waits for their chunks on first read.
  const chunks = new ChunkFetcher({ mirror, heldSeq: () => endpoint.heldSeq(), log: hooks.log });
  mount.fs.remoteChunks = chunks;
  const sync = new MirrorSync({
    mirror,
    mount,
    endpoint,
    chunks,
    log: hooks.log,
    ...(hooks.onFence ? { onFence: hooks.onFence } : {}),
    ...(hooks.limits ? { limits: hooks.limits } : {}),
  });
  const uploader = new Uploader({
    intervalMs: config.uploadIntervalMs,
    active: () => hooks.busy() && sync.linked,
    upload: () => sync.uploadSome(),
    onChange: (listener) => mount.onChange(listener),
    log: hooks.log,
  });
  uploader.start();
  const gc = startMirrorGc(mirror, {
    log: hooks.log,
    onRun: (report) => chunks.dropped(report.placeholdersDeleted),
  });
  let closed: Promise<void> | undefined;
  return {
    mirror,
    mount,
    sync,
    uploader,
    close() {
      closed ??= (async () => {
        gc.stop();
        await uploader.stop();
        await mount.unmount();
        mirror.close();
      })();
      return closed;
    },
  };
}
