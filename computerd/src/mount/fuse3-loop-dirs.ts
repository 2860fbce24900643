/**
 * Directories whose getattr the FUSE loop answers itself (cacheDirAttr in native/fuse3.c).
 * With default_permissions the kernel drops a directory's cached attributes at every change
 * of a name in it and asks again at the next path walk through it, so a create, link, unlink
 * or rename is followed by a getattr of its directory (1,000 of the 7,000 requests of create
 * 1000 files). After such a change the listener gives the loop the directory's new attributes,
 * exactly what a getattr would answer, and drops the directories that moved or went away (a
 * change of names touches no other directory); before any other request that may change a
 * directory it clears them all, and after a change of names that failed, so the loop never
 * answers with attributes JS would not.
 */
import { OP } from "./fuse3-native.ts";

/** Requests that change no directory's attributes (release does when it removes a hidden file: it says so). */
const KEEPS_DIRECTORIES = new Set<number>([
  OP.lookup,
  OP.getattr,
  OP.open,
  OP.read,
  OP.write,
  OP.flush,
  OP.release,
  OP.fsync,
  OP.fsyncdir,
  OP.opendir,
  OP.releasedir,
  OP.statfs,
  OP.getxattr,
  OP.listxattr,
  OP.readlink,
  OP.copy_file_range,
  OP.forget,
]);

/** Changes of names: they change only the directories the handler then updates or drops. */
const NAME_CHANGES = new Set<number>([
  OP.create,
  OP.mknod,
  OP.mkdir,
  OP.symlink,
  OP.link,
  OP.unlink,
  OP.rmdir,
  OP.rename,
]);

/** What the loop is told. */
export interface LoopDirectoryHooks {
  cacheDirectory?(attr: Float64Array, attrTimeout: number): void;
  clearDirectories?(): void;
  dropDirectory?(ino: number): void;
}

/** The listener's side of the loop's directory attributes. */
export class LoopDirectories {
  private readonly hooks: LoopDirectoryHooks;
  private readonly attrTimeout: number;
  /** Whether the loop may hold any (given since the last clear). */
  private held = false;

  constructor(hooks: LoopDirectoryHooks, attrTimeout: number) {
    this.hooks = hooks;
    this.attrTimeout = attrTimeout;
  }

  /** Whether the loop can take directories at all (a kernel mount). */
  get enabled(): boolean {
    return this.hooks.cacheDirectory !== undefined;
  }

  /** Before handling request `op`: one that may change a directory otherwise clears them. */
  before(op: number): void {
    if (!KEEPS_DIRECTORIES.has(op) && !NAME_CHANGES.has(op)) this.clear();
  }

  /** Request `op` failed: a change of names may have changed a directory part way. */
  failed(op: number): void {
    if (NAME_CHANGES.has(op)) this.clear();
  }

  /** Directory `ino` moved or went away: the loop forgets it. */
  drop(ino: number): void {
    if (this.held) this.hooks.dropDirectory?.(ino);
  }

  /** Forgets every directory the loop holds (a change it cannot follow: remote, hidden files). */
  clear(): void {
    if (!this.held) return;
    this.held = false;
    this.hooks.clearDirectories?.();
  }

  /** A directory's attributes (as a getattr would reply them) after a name in it changed. */
  changed(attr: Float64Array): void {
    if (!this.hooks.cacheDirectory) return;
    this.hooks.cacheDirectory(attr, this.attrTimeout);
    this.held = true;
  }
}
