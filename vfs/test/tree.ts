/**
 * Test helpers over the public Vfs API: a canonical dump of a whole tree (for comparing
 * trees across reopen, checkpoint restore and fork) and byte/text conversions.
 */
import type { Vfs } from "../src/index.ts";
import { sha256Hex } from "./backend.ts";

/** What a tree dump records for one path. */
export interface DumpEntry {
  type: string;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  ino: number;
  /** sha-256 of the content (files), the target (symlinks). */
  content?: string;
  xattrs?: Record<string, string>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function text(data: Uint8Array): string {
  return decoder.decode(data);
}

/** Every path of the tree (lstat semantics, "/" included) with its attributes and content hash. */
export function dumpTree(vfs: Vfs, options: { xattrs?: boolean } = {}): Record<string, DumpEntry> {
  const out: Record<string, DumpEntry> = {};
  const visit = (path: string) => {
    const st = vfs.lstat(path);
    const entry: DumpEntry = {
      type: st.type,
      mode: st.mode,
      uid: st.uid,
      gid: st.gid,
      nlink: st.nlink,
      size: st.size,
      ino: st.ino,
    };
    if (st.type === "file") entry.content = sha256Hex(vfs.readFile(path));
    if (st.type === "symlink") entry.content = vfs.readlink(path);
    if (options.xattrs) {
      const attrs: Record<string, string> = {};
      for (const name of vfs.listxattr(path, false)) attrs[name] = text(vfs.getxattr(path, name, false));
      entry.xattrs = attrs;
    }
    out[path] = entry;
    if (st.type === "dir") {
      for (const child of vfs.list(path)) visit(path === "/" ? `/${child.name}` : `${path}/${child.name}`);
    }
  };
  visit("/");
  return out;
}

/** Every path of the live tree (lstat view), "/" included, sorted. */
export function livePaths(vfs: Vfs, dir = "/"): string[] {
  const out = dir === "/" ? ["/"] : [];
  for (const e of vfs.list(dir)) {
    const path = dir === "/" ? `/${e.name}` : `${dir}/${e.name}`;
    out.push(path);
    if (e.type === "dir") out.push(...livePaths(vfs, path));
  }
  return out.sort();
}
