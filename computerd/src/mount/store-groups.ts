/**
 * New small files stored together: the write-back's store of files closed in the last 20 ms
 * hands the ones that are new and smaller than a chunk to the vfs in groups, each group one
 * operation (Vfs.writeFiles: a statement or two per file instead of about ten, its own revision,
 * savepoint, blob, chunk, row, quota and feed statements). The others, and every file of a group
 * the vfs refuses (the quota shrank, a file went), are stored one by one, so only a file that
 * fails keeps an error, as before.
 */
import type { FileContent, Stat } from "@computer/vfs";
import type { DirtyFile } from "./dirty-file.ts";

/** Files stored in one vfs operation at most. */
export const STORE_GROUP = 256;

/** What the write-back lends the group store. */
export interface GroupStoreHost {
  /** Whether a handle holds `ino` open again (it is stored after its next last close). */
  isOpen(ino: number): boolean;
  /** The dirty state of `ino`, if any is left. */
  file(ino: number): DirtyFile | undefined;
  /** The whole content of `file` when it may go in a group (new, small, no error kept). */
  content(file: DirtyFile): Uint8Array | undefined;
  /** What stat answers for `ino` before its store. */
  shown(ino: number): Stat | undefined;
  writeFiles(files: readonly FileContent[]): Stat[];
  /** `file` of a group was stored as `data`; `stat` is what the vfs answered. */
  stored(file: DirtyFile, data: Uint8Array, stat: Stat | undefined, shown: Stat | undefined): void;
  /** Stores `ino` by itself (a failure is kept for its next fsync or close). */
  alone(ino: number): void;
}

interface Member {
  file: DirtyFile;
  data: Uint8Array;
  shown: Stat | undefined;
}

/** Stores the files `inos` still closed: new small ones in groups of STORE_GROUP, the rest one by one. */
export function storeClosed(inos: readonly number[], host: GroupStoreHost): void {
  const members: Member[] = [];
  for (const ino of inos) {
    if (host.isOpen(ino)) continue;
    const file = host.file(ino);
    const data = file && host.content(file);
    if (file && data) members.push({ file, data, shown: host.shown(ino) });
    else host.alone(ino);
  }
  for (let i = 0; i < members.length; i += STORE_GROUP) {
    const group = members.slice(i, i + STORE_GROUP);
    let stats: Stat[];
    try {
      stats = host.writeFiles(group.map(({ file, data }) => ({ path: file.path, data, mtime: file.mtime })));
    } catch {
      for (const { file } of group) host.alone(file.ino);
      continue;
    }
    group.forEach(({ file, data, shown }, j) => {
      host.stored(file, data, stats[j], shown);
    });
  }
}
