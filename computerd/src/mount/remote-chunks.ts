/**
 * Chunks of the mirror whose bytes are still at the Durable Object (placeholders; the sync
 * client's chunk fetcher brings them): which FUSE requests must wait for which of them before
 * they are handled. A read waits for its own range (and starts fetching ahead); a write, a
 * truncate and a copy wait for the chunks they partly keep, which the vfs re-reads to merge.
 * Every other request goes on at once: metadata never waits for bytes.
 */
import { CHUNK_SIZE } from "@computer/vfs";
import { OP } from "./fuse3-native.ts";

/** What the mount asks of the fetcher. */
export interface RemoteChunks {
  /** True while inode `ino` may have chunks that are not stored here. */
  isLazy(ino: number): boolean;
  /** Inode `ino` may have such chunks now (a copy shared them from one that has). */
  addLazy(ino: number): void;
  /**
   * Undefined when every chunk of `length` bytes at `offset` of `ino` is stored; otherwise
   * resolves once they are (rejects with EIO when they cannot be fetched). `ahead`: fetch the
   * following chunks too (a read).
   */
  wait(ino: number, offset: number, length: number, ahead: boolean): Promise<void> | undefined;
}

const SET_SIZE = 1 << 3;

/** Waits for the chunks at both ends of a range (the ones a partial rewrite keeps part of). */
function ends(
  remote: RemoteChunks,
  ino: number,
  offset: number,
  length: number,
): (Promise<void> | undefined)[] {
  return [remote.wait(ino, offset, 1, false), remote.wait(ino, offset + Math.max(length, 1) - 1, 1, false)];
}

function all(waits: (Promise<void> | undefined)[]): Promise<void> | undefined {
  const pending = waits.filter((w): w is Promise<void> => w !== undefined);
  if (pending.length === 0) return undefined;
  return Promise.all(pending).then(() => undefined);
}

/** What whenChunksReady needs of the mount. */
export interface ChunkReadyFs {
  remoteChunks: RemoteChunks | undefined;
  stat(path: string): { size: number };
}

/**
 * Runs `handle` (request `op` with `args`, as fuse3-ops receives them) at once, or once the
 * chunks it needs are stored; `fail` answers what `handle` throws and a fetch that failed.
 */
export function whenChunksReady(
  fs: ChunkReadyFs,
  op: number,
  args: readonly (number | string | Buffer)[],
  pathOf: (ino: number) => string,
  fail: (err: unknown) => void,
  handle: () => void,
): void {
  const run = () => {
    try {
      handle();
    } catch (err) {
      fail(err);
    }
  };
  const wait = fs.remoteChunks && requestWait(fs.remoteChunks, op, args, (ino) => fs.stat(pathOf(ino)).size);
  if (wait) wait.then(run, fail);
  else run();
}

/**
 * The wait request `op` with arguments `args` must make before it is handled, or undefined.
 * `sizeOf` answers a lazy inode's current size (for a truncate); when it throws (the node is
 * gone) there is no wait and the handler answers what it is.
 */
export function requestWait(
  remote: RemoteChunks,
  op: number,
  args: readonly (number | string | Buffer)[],
  sizeOf: (ino: number) => number,
): Promise<void> | undefined {
  try {
    return waitFor(remote, op, args, sizeOf);
  } catch {
    return undefined;
  }
}

function waitFor(
  remote: RemoteChunks,
  op: number,
  args: readonly (number | string | Buffer)[],
  sizeOf: (ino: number) => number,
): Promise<void> | undefined {
  const n = (i: number) => args[i] as number;
  switch (op) {
    case OP.read:
      return remote.isLazy(n(0)) ? remote.wait(n(0), n(3), n(2), true) : undefined;
    case OP.write:
      return remote.isLazy(n(0)) ? all(ends(remote, n(0), n(2), (args[4] as Buffer).length)) : undefined;
    case OP.setattr: {
      if (!(n(1) & SET_SIZE) || !remote.isLazy(n(0))) return undefined;
      return all([remote.wait(n(0), n(5), 1, false), remote.wait(n(0), sizeOf(n(0)), 1, false)]);
    }
    case OP.copy_file_range: {
      const [from, fromOffset, to, toOffset, length] = [n(0), n(2), n(3), n(5), n(6)];
      const waits: (Promise<void> | undefined)[] = [];
      if (remote.isLazy(from)) {
        // Chunk-aligned alike, the copy shares whole chunks by hash; otherwise it moves bytes.
        const shares = (fromOffset - toOffset) % CHUNK_SIZE === 0;
        waits.push(
          ...(shares
            ? ends(remote, from, fromOffset, length)
            : [remote.wait(from, fromOffset, length, false)]),
        );
      }
      if (remote.isLazy(to)) waits.push(...ends(remote, to, toOffset, length));
      // Whole chunks are shared by hash, placeholders too: the target may have them now.
      if (remote.isLazy(from)) remote.addLazy(to);
      return all(waits);
    }
    default:
      return undefined;
  }
}
