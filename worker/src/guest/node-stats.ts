/**
 * Node's `fs.Stats` and `fs.Dirent` for the js guest, built from the DO's stats: `mode`
 * carries the type bits (S_IFREG …) as Node's does, times come as ms and Dates.
 */
import { TYPE_BITS } from "@computer/vfs/mode-bits";
import type { GuestFileType, GuestStat } from "../guest-hosting/guest-wire.ts";

/** The type predicates Stats and Dirent share (`isFile()`, `isDirectory()` …). */
class TypedEntry {
  readonly #type: GuestFileType;

  constructor(type: GuestFileType) {
    this.#type = type;
  }

  isFile(): boolean {
    return this.#type === "file";
  }
  isDirectory(): boolean {
    return this.#type === "dir";
  }
  isSymbolicLink(): boolean {
    return this.#type === "symlink";
  }
  isFIFO(): boolean {
    return this.#type === "fifo";
  }
  isSocket(): boolean {
    return this.#type === "socket";
  }
  isCharacterDevice(): boolean {
    return this.#type === "char";
  }
  isBlockDevice(): boolean {
    return this.#type === "block";
  }
}

/** Node's Stats. */
export class Stats extends TypedEntry {
  readonly dev = 1;
  readonly ino: number;
  readonly mode: number;
  readonly nlink: number;
  readonly uid: number;
  readonly gid: number;
  readonly rdev = 0;
  readonly size: number;
  readonly blksize = 4096;
  readonly blocks: number;
  readonly atimeMs: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly birthtimeMs: number;
  readonly atime: Date;
  readonly mtime: Date;
  readonly ctime: Date;
  readonly birthtime: Date;

  constructor(stat: GuestStat) {
    super(stat.type);
    this.ino = stat.ino;
    this.mode = TYPE_BITS[stat.type] | stat.mode;
    this.nlink = stat.nlink;
    this.uid = stat.uid;
    this.gid = stat.gid;
    this.size = stat.size;
    this.blocks = Math.ceil(stat.size / 512);
    this.atimeMs = stat.atimeMs;
    this.mtimeMs = stat.mtimeMs;
    this.ctimeMs = stat.ctimeMs;
    this.birthtimeMs = stat.ctimeMs;
    this.atime = new Date(stat.atimeMs);
    this.mtime = new Date(stat.mtimeMs);
    this.ctime = new Date(stat.ctimeMs);
    this.birthtime = new Date(stat.ctimeMs);
  }
}

/** Node's Dirent (`readdir(path, { withFileTypes: true })`). */
export class Dirent extends TypedEntry {
  readonly name: string;
  readonly parentPath: string;
  /** Deprecated alias of parentPath, still read by older code. */
  readonly path: string;

  constructor(name: string, parentPath: string, type: GuestFileType) {
    super(type);
    this.name = name;
    this.parentPath = parentPath;
    this.path = parentPath;
  }
}
