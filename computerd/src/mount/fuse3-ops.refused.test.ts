/**
 * A refused request changes nothing in the fuse3 handlers' tables: after every refused rename
 * shape (also ones the kernel would usually catch first, since its view may be stale), a
 * refused unlink, rmdir or setattr, both names answer at once as before — lookups, listings,
 * creates and removes inside them, an open file still open under its own name.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Call,
  caller,
  openTestLocalFs,
  type Reply,
  recordingAddon,
  testListener,
} from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";
import type { LocalFs } from "./local-fs.ts";

const ROOT = { uid: 0, gid: 0 };
const RENAME_NOREPLACE = 1;
const SET_MODE = 1 << 0;
const SET_SIZE = 1 << 3;
const O_RDONLY = 0;
const ERRNO = { EEXIST: 17, ENOTDIR: 20, EISDIR: 21, EINVAL: 22, EFBIG: 27, ENOTEMPTY: 39 } as const;

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;
let call: Call;

beforeEach(() => {
  ({ mirror, fs, close } = openTestLocalFs("computerd-fuse3-refused-"));
});

/** Starts serving, once the test wrote its tree into the mirror (the handlers cache listings). */
function serve(): void {
  const replies: Reply[] = [];
  call = caller(testListener(recordingAddon(replies), fs), replies);
}

afterEach(() => close());

/** Looks `path` up name by name as the kernel does; answers its node id. */
function lookup(path: string): number {
  let ino = ROOT_INO;
  for (const name of path.split("/").filter(Boolean)) {
    const reply = call(OP.lookup, ROOT, ino, name);
    expect(reply, `lookup ${name} in ${path}`).toMatchObject({ kind: "entry" });
    ino = reply.ino ?? 0;
    expect(ino, `lookup ${name} in ${path}`).toBeGreaterThan(0);
  }
  return ino;
}

/** opendir + readdir + releasedir of node `ino`: its names, "." and ".." first. */
function list(ino: number): string[] {
  const opened = call(OP.opendir, ROOT, ino, 0);
  expect(opened.kind).toBe("open");
  const listing = call(OP.readdir, ROOT, ino, opened.fh ?? 0, 4096, 0);
  call(OP.releasedir, ROOT, ino, opened.fh ?? 0);
  return listing.names ?? [];
}

const ok = { kind: "err", errno: 0 };

/** Uses a directory node: lists it, makes and removes a file and a directory inside. */
function useDir(ino: number, names: string[]): void {
  expect(list(ino)).toEqual([".", "..", ...names]);
  expect(call(OP.mkdir, ROOT, ino, 0o755, "made-dir")).toMatchObject({ kind: "entry" });
  const created = call(OP.create, ROOT, ino, 0o644, 0o101, "made-file");
  expect(created).toMatchObject({ kind: "create" });
  call(OP.release, ROOT, created.ino ?? 0, created.fh ?? 0);
  expect(call(OP.unlink, ROOT, ino, "made-file")).toEqual(ok);
  expect(call(OP.rmdir, ROOT, ino, "made-dir")).toEqual(ok);
  expect(call(OP.getattr, ROOT, ino, -1)).toMatchObject({ kind: "attr", ino });
}

/** What the mirror holds: every path with its inode. */
function tree(dir = "/"): string[] {
  return mirror.vfs.list(dir).flatMap((entry) => {
    const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
    const line = `${path} #${entry.ino}`;
    return entry.type === "dir" ? [line, ...tree(path)] : [line];
  });
}

/** The names directly inside `dir` ("" for the root) among seed paths. */
function childrenOf(seed: string[], dir: string): string[] {
  const prefix = dir === "" ? "" : `${dir}/`;
  return seed
    .map((p) => p.replace(/\/$/, ""))
    .filter((p) => p.startsWith(prefix) && p !== dir && !p.slice(prefix.length).includes("/"))
    .map((p) => p.slice(prefix.length))
    .sort();
}

interface Shape {
  errno: number;
  /** Directories (with "/" at the end) and files the shape needs. */
  seed: string[];
  from: string;
  to: string;
  flags?: number;
  /** A file kept open through the rename (the handlers would hide it if it were replaced). */
  open?: string;
}

const SHAPES: Record<string, Shape> = {
  "a directory over a non-empty directory": {
    errno: ERRNO.ENOTEMPTY,
    seed: ["a/", "a/in-a", "b/", "b/c/"],
    from: "a",
    to: "b",
  },
  "a file over a directory": { errno: ERRNO.EISDIR, seed: ["f", "d/", "d/in-d"], from: "f", to: "d" },
  "a directory over a file": { errno: ERRNO.ENOTDIR, seed: ["d/", "d/in-d", "f"], from: "d", to: "f" },
  "a directory over an open file": {
    errno: ERRNO.ENOTDIR,
    seed: ["d/", "d/in-d", "f"],
    from: "d",
    to: "f",
    open: "f",
  },
  "a directory into its own subdirectory": {
    errno: ERRNO.EINVAL,
    seed: ["d/", "d/sub/", "d/sub/in-sub"],
    from: "d",
    to: "d/sub/moved",
  },
  "RENAME_NOREPLACE over an open file": {
    errno: ERRNO.EEXIST,
    seed: ["f", "g"],
    from: "f",
    to: "g",
    flags: RENAME_NOREPLACE,
    open: "g",
  },
};

describe("a refused rename changes nothing", () => {
  it.each(Object.entries(SHAPES))("%s", (_name, shape) => {
    for (const path of shape.seed) {
      if (path.endsWith("/")) mirror.vfs.mkdir(`/${path.slice(0, -1)}`);
      else mirror.vfs.writeFile(`/${path}`, path);
    }
    const before = tree();
    serve();
    const inos = new Map(shape.seed.map((path) => [path.replace(/\/$/, ""), lookup(path)]));
    const handle = shape.open === undefined ? undefined : call(OP.open, ROOT, lookup(shape.open), O_RDONLY);
    const slash = (path: string) => path.lastIndexOf("/");
    const parentOf = (path: string) => (slash(path) < 0 ? ROOT_INO : lookup(path.slice(0, slash(path))));
    const reply = call(
      OP.rename,
      ROOT,
      parentOf(shape.from),
      parentOf(shape.to),
      shape.flags ?? 0,
      shape.from.slice(slash(shape.from) + 1),
      shape.to.slice(slash(shape.to) + 1),
    );
    expect(reply).toEqual({ kind: "err", errno: shape.errno });
    // At once, through the node ids the kernel still caches for both names (no new lookup,
    // which would repair a lost name): they work. Then lookups find the same nodes.
    for (const [path, ino] of inos) {
      if (shape.seed.includes(`${path}/`)) useDir(ino, childrenOf(shape.seed, path));
      else expect(call(OP.getattr, ROOT, ino, -1)).toMatchObject({ kind: "attr", ino });
    }
    for (const [path, ino] of inos) expect(lookup(path), path).toBe(ino);
    if (handle && shape.open) {
      // Not hidden: no name of the root is concealed, the file keeps its own name and data.
      expect(list(ROOT_INO)).toEqual([".", "..", ...childrenOf(shape.seed, "")]);
      call(OP.release, ROOT, inos.get(shape.open) ?? 0, handle.fh ?? 0);
      expect(mirror.vfs.readText(`/${shape.open}`)).toBe(shape.open);
    }
    fs.flushAll();
    expect(tree()).toEqual(before);
  });
});

describe("other refused requests change nothing", () => {
  it("unlink of a directory and rmdir of a non-empty one leave it usable", () => {
    mirror.vfs.mkdir("/d");
    mirror.vfs.writeFile("/d/x", "x");
    serve();
    const d = lookup("d");
    expect(call(OP.unlink, ROOT, ROOT_INO, "d")).toEqual({ kind: "err", errno: ERRNO.EISDIR });
    useDir(d, ["x"]);
    expect(call(OP.rmdir, ROOT, ROOT_INO, "d")).toEqual({ kind: "err", errno: ERRNO.ENOTEMPTY });
    useDir(d, ["x"]);
  });

  it("a setattr whose size is refused leaves the mode as it was", () => {
    mirror.vfs.writeFile("/f", "data");
    mirror.vfs.chmod("/f", 0o644);
    serve();
    const f = lookup("f");
    const args = [f, SET_MODE | SET_SIZE, 0o600, 0, 0, 2 ** 53, 0, 0, 0, 0, -1];
    expect(call(OP.setattr, ROOT, ...args)).toEqual({ kind: "err", errno: ERRNO.EFBIG });
    fs.flushAll();
    expect(mirror.vfs.stat("/f")).toMatchObject({ mode: 0o644, size: 4 });
  });
});
