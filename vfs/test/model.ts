/**
 * A tiny in-memory reference model of the vfs (names, inodes, hard links, symlinks,
 * contents and chunk-granular allocation) for the property test. It states the POSIX
 * rules directly on objects: no SQL, no paths as keys.
 */
import type { FsErrorCode } from "../src/errors.ts";
import { CHUNK_SIZE, SYMLOOP_MAX, WORKSPACE } from "../src/limits.ts";

/** One operation of a random sequence. */
export type Op =
  | { kind: "mkdir"; path: string }
  | { kind: "writeFile"; path: string; data: Uint8Array }
  | { kind: "writeFiles"; files: { path: string; data: Uint8Array }[] }
  | { kind: "pwrite"; path: string; offset: number; data: Uint8Array }
  | { kind: "truncate"; path: string; length: number }
  | { kind: "unlink"; path: string }
  | { kind: "rmdir"; path: string }
  | { kind: "rm"; path: string }
  | { kind: "rename"; from: string; to: string }
  | { kind: "exchange"; from: string; to: string }
  | { kind: "link"; from: string; to: string }
  | { kind: "symlink"; target: string; path: string }
  | { kind: "chmod"; path: string; mode: number };

interface FileNode {
  type: "file";
  mode: number;
  links: number;
  data: Uint8Array;
  /** Stored bytes per chunk index (holes have no entry). */
  chunks: Map<number, number>;
}
interface LinkNode {
  type: "symlink";
  mode: number;
  links: number;
  target: string;
}
interface DirNode {
  type: "dir";
  mode: number;
  entries: Map<string, Node>;
  parent: DirNode | undefined;
}
type Node = FileNode | LinkNode | DirNode;

/** Where a path leads: the directory holding the last name, the name, and what it names. */
interface Loc {
  parent: DirNode;
  name: string;
  node: Node | undefined;
}

/** What the model says about one path of the final tree. */
export interface ModelEntry {
  type: string;
  mode: number;
  nlink: number;
  size: number;
  data?: Uint8Array;
  target?: string;
}

class Fail extends Error {
  readonly code: FsErrorCode;

  constructor(code: FsErrorCode) {
    super(code);
    this.code = code;
  }
}

export class Model {
  readonly root: DirNode = { type: "dir", mode: 0o755, entries: new Map(), parent: undefined };

  /** Applies `op`; returns the error code it fails with (the model is then unchanged) or undefined. */
  apply(op: Op): FsErrorCode | undefined {
    try {
      this.run(op);
      return undefined;
    } catch (err) {
      if (err instanceof Fail) return err.code;
      throw err;
    }
  }

  private run(op: Op): void {
    switch (op.kind) {
      case "mkdir": {
        const loc = this.locate(op.path, false);
        if (loc.node) throw new Fail("EEXIST");
        loc.parent.entries.set(loc.name, {
          type: "dir",
          mode: 0o755,
          entries: new Map(),
          parent: loc.parent,
        });
        return;
      }
      case "writeFile": {
        const loc = this.locate(op.path, true);
        this.replace(loc.node ? this.regular(loc.node) : this.create(loc), op.data);
        return;
      }
      case "writeFiles": {
        // All or nothing, checked in order: each an existing regular file, none twice.
        const seen = new Set<FileNode>();
        const files = op.files.map(({ path, data }) => {
          const file = this.regular(this.existing(path, true));
          if (seen.has(file)) throw new Fail("EINVAL");
          seen.add(file);
          return { file, data };
        });
        for (const { file, data } of files) this.replace(file, data);
        return;
      }
      case "pwrite":
        this.pwrite(this.regular(this.existing(op.path, true)), op.offset, op.data);
        return;
      case "truncate":
        this.truncate(this.regular(this.existing(op.path, true)), op.length);
        return;
      case "unlink": {
        const loc = this.locate(op.path, false);
        if (!loc.node) throw new Fail("ENOENT");
        if (loc.node.type === "dir") throw new Fail("EISDIR");
        this.drop(loc);
        return;
      }
      case "rmdir": {
        const loc = this.locate(op.path, false);
        if (!loc.node) throw new Fail("ENOENT");
        if (loc.node.type !== "dir") throw new Fail("ENOTDIR");
        if (loc.node === this.root) throw new Fail("EBUSY");
        if (loc.node.entries.size > 0) throw new Fail("ENOTEMPTY");
        loc.parent.entries.delete(loc.name);
        return;
      }
      case "rm": {
        const loc = this.locate(op.path, false);
        if (!loc.node) throw new Fail("ENOENT");
        if (loc.node === this.root) throw new Fail("EBUSY");
        this.drop(loc);
        return;
      }
      case "rename":
        this.rename(op.from, op.to);
        return;
      case "exchange":
        this.exchange(op.from, op.to);
        return;
      case "link": {
        const src = this.locate(op.from, false);
        if (!src.node) throw new Fail("ENOENT");
        if (src.node.type === "dir") throw new Fail("EPERM");
        const dst = this.locate(op.to, false);
        if (dst.node) throw new Fail("EEXIST");
        src.node.links++;
        dst.parent.entries.set(dst.name, src.node);
        return;
      }
      case "symlink": {
        const loc = this.locate(op.path, false);
        if (loc.node) throw new Fail("EEXIST");
        loc.parent.entries.set(loc.name, { type: "symlink", mode: 0o777, links: 1, target: op.target });
        return;
      }
      case "chmod":
        this.existing(op.path, true).mode = op.mode;
        return;
      default:
        op satisfies never;
    }
  }

  private rename(from: string, to: string): void {
    const src = this.locate(from, false);
    if (!src.node) throw new Fail("ENOENT");
    const dst = this.locate(to, false);
    if (src.node === this.root || dst.node === this.root) throw new Fail("EBUSY");
    if (src.node.type === "dir") {
      for (let d: DirNode | undefined = dst.parent; d; d = d.parent)
        if (d === src.node) throw new Fail("EINVAL");
    }
    if (dst.node) {
      if (dst.node === src.node) return;
      if (src.node.type === "dir" && dst.node.type !== "dir") throw new Fail("ENOTDIR");
      if (src.node.type !== "dir" && dst.node.type === "dir") throw new Fail("EISDIR");
      if (dst.node.type === "dir" && dst.node.entries.size > 0) throw new Fail("ENOTEMPTY");
      this.drop(dst);
    }
    src.parent.entries.delete(src.name);
    dst.parent.entries.set(dst.name, src.node);
    if (src.node.type === "dir") src.node.parent = dst.parent;
  }

  /** renameat2(RENAME_EXCHANGE): both names exist and trade nodes; neither may lie inside the other. */
  private exchange(from: string, to: string): void {
    const a = this.locate(from, false);
    if (!a.node) throw new Fail("ENOENT");
    const b = this.locate(to, false);
    if (!b.node) throw new Fail("ENOENT");
    if (a.node === this.root || b.node === this.root) throw new Fail("EBUSY");
    for (const [outer, inner] of [
      [a.node, b],
      [b.node, a],
    ] as const) {
      for (let d: DirNode | undefined = inner.parent; d; d = d.parent)
        if (d === outer) throw new Fail("EINVAL");
    }
    if (a.node === b.node) return;
    a.parent.entries.set(a.name, b.node);
    b.parent.entries.set(b.name, a.node);
    if (a.node.type === "dir") a.node.parent = b.parent;
    if (b.node.type === "dir") b.node.parent = a.parent;
  }

  /** The file holds exactly `data` now (writeFile). */
  private replace(file: FileNode, data: Uint8Array): void {
    file.data = data.slice();
    file.chunks = new Map();
    for (let i = 0; i * CHUNK_SIZE < data.length; i++) {
      file.chunks.set(i, Math.min(CHUNK_SIZE, data.length - i * CHUNK_SIZE));
    }
  }

  private pwrite(file: FileNode, offset: number, data: Uint8Array): void {
    if (data.length === 0) return;
    const end = offset + data.length;
    if (end > file.data.length) {
      const grown = new Uint8Array(end);
      grown.set(file.data);
      file.data = grown;
    }
    file.data.set(data, offset);
    for (let idx = Math.floor(offset / CHUNK_SIZE); idx <= Math.floor((end - 1) / CHUNK_SIZE); idx++) {
      const to = Math.min(end, (idx + 1) * CHUNK_SIZE) - idx * CHUNK_SIZE;
      file.chunks.set(idx, Math.max(file.chunks.get(idx) ?? 0, to));
    }
  }

  private truncate(file: FileNode, length: number): void {
    if (length < file.data.length) {
      file.data = file.data.slice(0, length);
      const keep = Math.ceil(length / CHUNK_SIZE);
      for (const idx of [...file.chunks.keys()]) if (idx >= keep) file.chunks.delete(idx);
      const tail = length - (keep - 1) * CHUNK_SIZE;
      const last = file.chunks.get(keep - 1);
      if (last !== undefined && last > tail) file.chunks.set(keep - 1, tail);
    } else {
      const grown = new Uint8Array(length);
      grown.set(file.data);
      file.data = grown;
    }
  }

  /** Removes one name; a directory goes with everything below it. */
  private drop(loc: Loc): void {
    const node = loc.node;
    loc.parent.entries.delete(loc.name);
    const unlink = (n: Node) => {
      if (n.type === "dir") for (const child of n.entries.values()) unlink(child);
      else n.links--;
    };
    if (node) unlink(node);
  }

  private create(loc: Loc): FileNode {
    const file: FileNode = {
      type: "file",
      mode: 0o644,
      links: 1,
      data: new Uint8Array(0),
      chunks: new Map(),
    };
    loc.parent.entries.set(loc.name, file);
    return file;
  }

  private regular(node: Node): FileNode {
    if (node.type === "dir") throw new Fail("EISDIR");
    if (node.type !== "file") throw new Fail("EINVAL");
    return node;
  }

  private existing(path: string, follow: boolean): Node {
    const loc = this.locate(path, follow);
    if (!loc.node) throw new Fail("ENOENT");
    return loc.node;
  }

  /** POSIX resolution from the root; symlinks in the middle always, the last one if `followLast`. */
  private locate(path: string, followLast: boolean): Loc {
    let hops = 0;
    const self = (dir: DirNode): Loc => {
      const parent = dir.parent ?? dir;
      const name = [...parent.entries].find(([, n]) => n === dir)?.[0] ?? "";
      return { parent, name, node: dir };
    };
    const walk = (start: DirNode, names: string[]): Loc => {
      let dir = start;
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string;
        const last = i === names.length - 1;
        if (name === "..") {
          dir = dir.parent ?? dir;
          if (last) return self(dir);
          continue;
        }
        const node = dir.entries.get(name);
        if (!node) {
          if (last) return { parent: dir, name, node: undefined };
          throw new Fail("ENOENT");
        }
        if (node.type === "symlink" && (!last || followLast)) {
          if (++hops > SYMLOOP_MAX) throw new Fail("ELOOP");
          const absolute = node.target.startsWith("/");
          const inside = node.target === WORKSPACE || node.target.startsWith(`${WORKSPACE}/`);
          const target = (inside ? node.target.slice(WORKSPACE.length) : node.target)
            .split("/")
            .filter((n) => n !== "" && n !== ".");
          const rest = [...target, ...names.slice(i + 1)];
          const from = absolute ? this.root : dir;
          return rest.length === 0 ? self(from) : walk(from, rest);
        }
        if (last) return { parent: dir, name, node };
        if (node.type !== "dir") throw new Fail("ENOTDIR");
        dir = node;
      }
      return self(dir);
    };
    return walk(
      this.root,
      path.split("/").filter((n) => n !== "" && n !== "."),
    );
  }

  /** The final tree by path (lstat view, "/" included) and the groups of paths sharing an inode. */
  dump(): { entries: Record<string, ModelEntry>; groups: string[][]; usedBytes: number } {
    const entries: Record<string, ModelEntry> = {};
    const names = new Map<Node, string[]>();
    let usedBytes = 0;
    const visit = (node: Node, path: string) => {
      const seen = names.get(node);
      if (seen) seen.push(path);
      else names.set(node, [path]);
      if (node.type === "dir") {
        let subdirs = 0;
        for (const [name, child] of node.entries) {
          if (child.type === "dir") subdirs++;
          visit(child, path === "/" ? `/${name}` : `${path}/${name}`);
        }
        entries[path] = { type: "dir", mode: node.mode, nlink: 2 + subdirs, size: 0 };
      } else if (node.type === "file") {
        entries[path] = {
          type: "file",
          mode: node.mode,
          nlink: node.links,
          size: node.data.length,
          data: node.data,
        };
        if (!seen) for (const size of node.chunks.values()) usedBytes += size;
      } else {
        const size = new TextEncoder().encode(node.target).length;
        entries[path] = { type: "symlink", mode: node.mode, nlink: node.links, size, target: node.target };
      }
    };
    visit(this.root, "/");
    const groups = [...names.values()].map((paths) => paths.sort()).sort();
    return { entries, groups, usedBytes };
  }
}
