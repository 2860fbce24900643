/**
 * Vfs.createNodes and Vfs.putBlobs: many nodes made in one operation end exactly as the
 * single-node operations (mkdir, writeFile, symlink, mknod, then chown, chmod, utimes) leave
 * them; one revision, the feed names every node and touched parent; a clear error with
 * nothing changed otherwise; and a statement count that does not grow with the nodes.
 */
import fc from "fast-check";
import { describe, expect, vfsTest } from "../test/backend.ts";
import { errorCode } from "../test/snapshot.ts";
import { countStatements } from "../test/statements.ts";
import type { NewNode } from "./create-nodes.ts";
import type { SqlLike } from "./sql.ts";
import { canonical, readState } from "./sync/state.ts";
import type { Timespec } from "./types.ts";
import type { Vfs } from "./vfs.ts";

const T1: Timespec = { sec: 1_700_000_000, nsec: 123_456_789 };
const T2: Timespec = { sec: 1_600_000_000, nsec: 5 };

/** What a path holds, as sync compares it, plus atime and nlink. */
function held(vfs: Vfs, sql: SqlLike, path: string): string {
  const state = readState(vfs, sql, path);
  if (!state) return "absent";
  const { atime, nlink } = state.stat;
  return `${canonical(state)} ${atime.sec}.${atime.nsec} ${nlink}`;
}

/**
 * `nodes` made with the single-node operations; the times are set last, deepest first, since
 * creating an entry stamps its directory (createNodes gives every node its final times).
 */
function createOneByOne(vfs: Vfs, nodes: readonly NewNode[]): void {
  for (const node of nodes) createOne(vfs, node);
  const depth = (path: string) => path.split("/").length;
  for (const node of [...nodes].sort((a, b) => depth(b.path) - depth(a.path))) {
    vfs.utimes(node.path, node.atime, node.mtime, false);
  }
}

function createOne(vfs: Vfs, node: NewNode): void {
  switch (node.type) {
    case "dir":
      vfs.mkdir(node.path, { mode: node.mode });
      break;
    case "file":
      vfs.setChunks(node.path, node.chunks ?? [], node.size ?? 0, { mode: node.mode, exclusive: true });
      break;
    case "symlink":
      vfs.symlink(node.target ?? "", node.path);
      break;
    default:
      vfs.mknod(node.path, node.type, node.mode, node.rdev ?? 0);
  }
  vfs.chown(node.path, node.uid, node.gid, false);
  if (node.type !== "symlink") vfs.chmod(node.path, node.mode);
}

function node(path: string, type: NewNode["type"], extra: Partial<NewNode> = {}): NewNode {
  return { path, type, mode: 0o644, uid: 0, gid: 0, atime: T1, mtime: T2, ...extra };
}

describe("createNodes", () => {
  vfsTest(
    "files, directories, symlinks and devices end as the one-by-one operations leave them",
    (vfs, { sql }) => {
      const [small, other] = vfs.putBlobs([
        new TextEncoder().encode("hello\n"),
        new Uint8Array(3000).fill(7),
      ]);
      const nodes = (root: string): NewNode[] => [
        node(`${root}/d`, "dir", { mode: 0o2750, uid: 1000, gid: 1001 }),
        node(`${root}/d/f`, "file", { mode: 0o4755, uid: 5, gid: 6, size: 6, chunks: [small ?? ""] }),
        node(`${root}/d/sparse`, "file", { size: (3 << 20) + 1, chunks: ["", other ?? ""] }),
        node(`${root}/d/e`, "dir", { mode: 0o700 }),
        node(`${root}/d/e/empty`, "file", { mode: 0o600 }),
        node(`${root}/link`, "symlink", { target: "d/f", uid: 7, gid: 8 }),
        node(`${root}/fifo`, "fifo", { mode: 0o640 }),
        node(`${root}/tty`, "char", { mode: 0o620, rdev: 0x0501 }),
      ];
      vfs.mkdir("/one");
      vfs.mkdir("/many");
      createOneByOne(vfs, nodes("/one"));
      const stats = vfs.createNodes(nodes("/many"));
      expect(stats.map((s) => s.type)).toEqual([
        "dir",
        "file",
        "file",
        "dir",
        "file",
        "symlink",
        "fifo",
        "char",
      ]);
      for (const n of nodes("")) {
        expect(held(vfs, sql, `/many${n.path}`), n.path).toBe(held(vfs, sql, `/one${n.path}`));
      }
      expect(vfs.readText("/many/link")).toBe("hello\n");
      expect(vfs.lstat("/many").nlink).toBe(vfs.lstat("/one").nlink);
      expect(vfs.usage().usedBytes).toBe(2 * (6 + 3000));
    },
  );

  vfsTest(
    "one revision; the feed names every node and the existing parent, whose mtime moves",
    (vfs, { clock }) => {
      vfs.mkdir("/p");
      const before = vfs.lstat("/p");
      const cursor = vfs.changes("0").cursor;
      clock.advance(1000);
      const rev = vfs.rev();
      vfs.createNodes([node("/p/a", "file"), node("/p/b", "dir"), node("/p/b/c", "file")]);
      expect(vfs.rev()).toBe(rev + 1);
      const page = vfs.changes(cursor, { describe: false });
      expect(page.changes.map((c) => [c.path, c.rev])).toEqual([
        ["/p", rev + 1],
        ["/p/a", rev + 1],
        ["/p/b", rev + 1],
        ["/p/b/c", rev + 1],
      ]);
      const after = vfs.lstat("/p");
      expect(after.mtime.sec).toBeGreaterThan(before.mtime.sec);
      expect(after.nlink).toBe(before.nlink + 1);
      expect(vfs.lstat("/p/b")).toMatchObject({ nlink: 2, mtime: T2 });
    },
  );

  vfsTest("a parent reached through a symlink is followed, as by any create", (vfs) => {
    vfs.mkdir("/real");
    vfs.mkdir("/real/sub");
    vfs.symlink("real", "/via");
    vfs.createNodes([node("/via/sub/a", "file"), node("/via/b", "dir"), node("/via/b/c", "file")]);
    expect(vfs.list("/real/sub").map((e) => e.name)).toEqual(["a"]);
    expect(vfs.lstat("/real/b/c").type).toBe("file");
    expect(vfs.changes("0", { describe: false }).changes.map((c) => c.path)).toContain("/real/sub/a");
  });

  vfsTest("a taken name, a missing or non-directory parent, a bad node: an error, nothing changes", (vfs) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/taken", "x");
    const [blob] = vfs.putBlobs([new Uint8Array([1])]);
    const rev = vfs.rev();
    const cases: [NewNode[], string][] = [
      [[node("/d/new", "file"), node("/d/taken", "dir")], "EEXIST"],
      [[node("/d/twice", "file"), node("/d/twice", "file")], "EEXIST"],
      [[node("/d/new", "file"), node("/nowhere/x", "file")], "ENOENT"],
      [[node("/d/taken/x", "file")], "ENOTDIR"],
      [[node("/d/new", "file", { size: 1, chunks: ["0".repeat(64)] })], "EINVAL"],
      [[node("/d/new", "file", { size: 1, chunks: [blob ?? "", blob ?? ""] })], "EINVAL"],
      [[node("/d/new", "file", { mode: 0o10000 })], "EINVAL"],
      [[node("/d/new", "file", { uid: -1 })], "EINVAL"],
      [[node("/d/new", "symlink")], "EINVAL"],
      [[node("/d/a/../b", "file")], "EINVAL"],
      [[node(`/d/${"n".repeat(256)}`, "file")], "ENAMETOOLONG"],
    ];
    for (const [nodes, code] of cases) {
      expect(
        errorCode(() => vfs.createNodes(nodes)),
        JSON.stringify(nodes[nodes.length - 1]?.path),
      ).toBe(code);
    }
    expect(vfs.rev()).toBe(rev);
    expect(vfs.list("/d").map((e) => e.name)).toEqual(["taken"]);
  });

  vfsTest("past the quota: ENOSPC, nothing created", (vfs) => {
    const [blob] = vfs.putBlobs([new Uint8Array(100)]);
    vfs.setQuota(150);
    const file = (path: string) => node(path, "file", { size: 100, chunks: [blob ?? ""] });
    expect(errorCode(() => vfs.createNodes([file("/a"), file("/b")]))).toBe("ENOSPC");
    expect(vfs.list("/")).toEqual([]);
    vfs.createNodes([file("/a")]);
    expect(vfs.usage().usedBytes).toBe(100);
  });

  vfsTest("statements per call do not grow with the nodes", (vfs, { sql }) => {
    const counted = (fn: () => void) => countStatements(sql, fn);
    vfs.mkdir("/a");
    vfs.mkdir("/b");
    const blobs = vfs.putBlobs(Array.from({ length: 10 }, (_, i) => new Uint8Array([i])));
    const files = (dir: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        node(`${dir}/f${i}`, "file", { size: 1, chunks: [blobs[i % 10] ?? ""] }),
      );
    expect(counted(() => vfs.createNodes(files("/a", 500)))).toBe(
      counted(() => vfs.createNodes(files("/b", 5))),
    );
  });

  vfsTest("parents the caller already found (knownDirs) are not looked up again", (vfs, { sql }) => {
    vfs.mkdir("/a/b/c", { recursive: true });
    vfs.mkdir("/x/y/z", { recursive: true });
    const ino = (path: string) => vfs.lstat(path).ino;
    const known = new Map([
      ["/x", ino("/x")],
      ["/x/y", ino("/x/y")],
      ["/x/y/z", ino("/x/y/z")],
    ]);
    const plain = countStatements(sql, () => vfs.createNodes([node("/a/b/c/f", "file")]));
    const given = countStatements(sql, () => vfs.createNodes([node("/x/y/z/f", "file")], known));
    // The three lookups of /x, /x/y and /x/y/z are skipped.
    expect(given).toBe(plain - 3);
    expect(vfs.lstat("/x/y/z/f").type).toBe("file");
    expect(vfs.list("/x/y/z").map((entry) => entry.name)).toEqual(["f"]);
  });

  vfsTest("putBlobs stores many blobs and answers their hashes; oversized ones are EINVAL", (vfs) => {
    const data = Array.from({ length: 60 }, (_, i) => new TextEncoder().encode(`blob ${i}`));
    const hashes = vfs.putBlobs(data);
    expect(hashes).toHaveLength(60);
    hashes.forEach((hash, i) => {
      expect(vfs.getBlob(hash)).toEqual(data[i]);
    });
    expect(errorCode(() => vfs.putBlobs([new Uint8Array((1 << 20) + 1)]))).toBe("EINVAL");
  });

  vfsTest("random trees: the same as the one-by-one operations", (vfs, { sql }) => {
    const [blob] = vfs.putBlobs([new Uint8Array([1, 2, 3])]);
    const time = fc.record({
      sec: fc.integer({ min: -1e10, max: 1e10 }),
      nsec: fc.integer({ min: 0, max: 999_999_999 }),
    });
    const spec = fc.record({
      type: fc.constantFrom<NewNode["type"]>("file", "dir", "symlink", "fifo", "socket", "char", "block"),
      mode: fc.integer({ min: 0, max: 0o7777 }),
      uid: fc.integer({ min: 0, max: 0xffffffff }),
      gid: fc.integer({ min: 0, max: 70000 }),
      atime: time,
      mtime: time,
      rdev: fc.integer({ min: 0, max: 1 << 20 }),
      parent: fc.nat(),
      content: fc.boolean(),
    });
    let run = 0;
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 12 }), (specs) => {
        run++;
        const roots = [`/one${run}`, `/many${run}`];
        for (const root of roots) vfs.mkdir(root);
        const nodes = (root: string): NewNode[] => {
          const dirs = [root];
          return specs.map((s, i) => {
            const path = `${dirs[s.parent % dirs.length]}/n${i}`;
            if (s.type === "dir") dirs.push(path);
            const n: NewNode = { path, ...s };
            if (s.type === "symlink") n.target = `t${i}`;
            if (s.type === "file" && s.content) Object.assign(n, { size: 3, chunks: [blob ?? ""] });
            return n;
          });
        };
        createOneByOne(vfs, nodes(roots[0] ?? ""));
        vfs.createNodes(nodes(roots[1] ?? ""));
        for (const n of nodes("")) {
          expect(held(vfs, sql, `${roots[1]}${n.path}`)).toBe(held(vfs, sql, `${roots[0]}${n.path}`));
        }
      }),
      { numRuns: 40 },
    );
  });
});
