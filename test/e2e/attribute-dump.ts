/**
 * Both views of a computer's attributes, for the attribute round-trip e2e test: the container's
 * lstat(2) of every path under a folder (a python script run as an exec, nanosecond times as
 * integers) and the HTTP API's stat/listxattr/getxattr ops for the same paths, brought to one
 * comparable shape.
 */

import type { Computer, FsOpBody, FsOpName } from "@computer/sdk";
import { expectSynced, runContainer } from "./fleet-computer.ts";

/** One path's attributes in a form both sides can produce. */
export interface Attributes {
  type: string;
  /** Permission bits with setuid/setgid/sticky, 4-digit octal. */
  mode: string;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  rdevMajor: number;
  rdevMinor: number;
  /** Nanoseconds since the epoch, as a decimal string (exact beyond 2^53). */
  mtime: string;
  atime: string;
  /** user.* attributes, values in base64. */
  xattrs: Record<string, string>;
}

/** A side's view: attributes per path ("/attr/x") and the inode number of each path. */
export interface View {
  attributes: Record<string, Attributes>;
  ino: Record<string, number>;
  /** 512-byte blocks (container) or allocated bytes (API), per path. */
  space: Record<string, number>;
  ctime: Record<string, string>;
}

/** lstat of every path under argv[1] (itself included), as JSON on stdout. */
const DUMP = `
import base64, json, os, stat, sys
TYPES = {stat.S_IFREG: "file", stat.S_IFDIR: "dir", stat.S_IFLNK: "symlink", stat.S_IFIFO: "fifo",
         stat.S_IFSOCK: "socket", stat.S_IFCHR: "char", stat.S_IFBLK: "block"}
top = sys.argv[1]
out = {}
def visit(p):
    st = os.lstat(p)
    xattrs = {}
    for name in os.listxattr(p, follow_symlinks=False):
        if name.startswith("user."):
            xattrs[name] = base64.b64encode(os.getxattr(p, name, follow_symlinks=False)).decode()
    out["/" + p] = {"type": TYPES[stat.S_IFMT(st.st_mode)], "mode": "%04o" % stat.S_IMODE(st.st_mode),
        "uid": st.st_uid, "gid": st.st_gid, "nlink": st.st_nlink, "size": st.st_size,
        "rdevMajor": os.major(st.st_rdev), "rdevMinor": os.minor(st.st_rdev),
        "mtime": str(st.st_mtime_ns), "atime": str(st.st_atime_ns), "ctime": str(st.st_ctime_ns),
        "ino": st.st_ino, "blocks": st.st_blocks, "xattrs": xattrs}
    if stat.S_ISDIR(st.st_mode):
        for name in sorted(os.listdir(p)):
            visit(os.path.join(p, name))
visit(top)
print(json.dumps(out))
`;

/** The uid or gid a command in the container sees for a vfs uid or gid. */
export type OwnerMap = (vfsId: number) => number;

/** The container's view of `dir` (a workspace-relative folder), read by an exec. */
export async function containerView(api: Computer, dir: string): Promise<View> {
  const result = await runContainer(api, `python3 -c '${DUMP.replaceAll("'", "'\\''")}' ${dir}`);
  expectSynced(result);
  const raw = JSON.parse(result.stdout) as Record<
    string,
    Attributes & { ino: number; blocks: number; ctime: string }
  >;
  const view: View = { attributes: {}, ino: {}, space: {}, ctime: {} };
  for (const [path, { ino, blocks, ctime, ...rest }] of Object.entries(raw)) {
    view.attributes[path] = rest;
    view.ino[path] = ino;
    view.space[path] = blocks;
    view.ctime[path] = ctime;
  }
  return view;
}

/** Runs one POST /fs op as written (a failure throws the ComputerError); answers its body. */
export async function okOp(api: Computer, op: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await api.files.op(op as FsOpBody<FsOpName>)) as unknown as Record<string, unknown>;
}

interface ApiTimespec {
  sec: number;
  nsec: number;
}

function ns(t: ApiTimespec): string {
  return (BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec)).toString();
}

/**
 * The API's view of `paths` (stat with follow: false, and every user.* attribute), with owners
 * as a command in the container sees them.
 */
export async function apiView(api: Computer, paths: readonly string[], owner: OwnerMap): Promise<View> {
  const view: View = { attributes: {}, ino: {}, space: {}, ctime: {} };
  for (const path of paths) {
    const s = await okOp(api, { op: "stat", path, follow: false });
    const times = s.timespec as { atime: ApiTimespec; mtime: ApiTimespec; ctime: ApiTimespec };
    const names = (await okOp(api, { op: "listxattr", path, follow: false })).names as string[];
    const xattrs: Record<string, string> = {};
    for (const name of names.filter((n) => n.startsWith("user."))) {
      xattrs[name] = (await okOp(api, { op: "getxattr", path, name, follow: false })).value as string;
    }
    view.attributes[path] = {
      type: s.type as string,
      mode: s.mode as string,
      uid: owner(s.uid as number),
      gid: owner(s.gid as number),
      nlink: s.nlink as number,
      size: s.size as number,
      rdevMajor: s.rdevMajor as number,
      rdevMinor: s.rdevMinor as number,
      mtime: ns(times.mtime),
      atime: ns(times.atime),
      xattrs,
    };
    view.ino[path] = s.ino as number;
    view.space[path] = s.allocated as number;
    view.ctime[path] = ns(times.ctime);
  }
  return view;
}

/**
 * Paths grouped by inode, as sets of names: the two sides number inodes independently
 * (the mirror and the Durable Object each allocate their own), but which names share one
 * inode must agree.
 */
export function linkGroups(ino: Record<string, number>): string[][] {
  const groups = new Map<number, string[]>();
  for (const [path, n] of Object.entries(ino)) groups.set(n, [...(groups.get(n) ?? []), path]);
  return [...groups.values()].map((g) => g.sort()).sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** Every field where the views differ, per path ({} when they agree). */
export function differences(container: View, api: View): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const paths = new Set([...Object.keys(container.attributes), ...Object.keys(api.attributes)]);
  for (const path of paths) {
    const c = container.attributes[path];
    const a = api.attributes[path];
    if (c === undefined || a === undefined) {
      out[path] = { container: c ?? "missing", api: a ?? "missing" };
      continue;
    }
    for (const key of Object.keys(c) as (keyof Attributes)[]) {
      // The dump lists every directory it stats, and a listing moves a directory's atime
      // (relatime, as on tmpfs and ext4); atime moved by reads is each side's own (not synced
      // by itself), so a directory's atime is not comparable across the dump.
      if (key === "atime" && c.type === "dir") continue;
      if (JSON.stringify(c[key]) !== JSON.stringify(a[key])) {
        out[path] = { ...out[path], [key]: { container: c[key], api: a[key] } };
      }
    }
    const blocks = container.space[path];
    const allocated = api.space[path] ?? 0;
    if (blocks !== Math.ceil(allocated / 512)) {
      out[path] = { ...out[path], space: { containerBlocks: blocks, apiAllocated: allocated } };
    }
  }
  return out;
}
