/**
 * The names the FUSE loop holds to answer lookup misses itself (fuse3-loop-names.ts): after any
 * sequence of requests — creates, mkdir, mknod, symlinks, links, renames, exchanges, removals,
 * lookups, remote changes — every directory the loop holds has every name the mirror has there,
 * so a miss it answers is one the listener would answer. The loop is modelled by its hooks.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileInDir, openTestHandlers, type TestHandlers } from "../../test/mount-harness.ts";
import { requestSteps, runRequestSteps } from "../../test/request-steps.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";

const ROOT = { uid: 0, gid: 0 };
const O_RDWR = 2;
const S_IFIFO = 0o010000;

let t: TestHandlers;
/** The loop's directories as its hooks left them: inode → names. */
let held: Map<number, Set<string>>;

function open(): void {
  held = new Map();
  t = openTestHandlers("computerd-fuse3-loopnames-", {
    setup: fileInDir,
    kernel: {
      holdNames: (ino, names) => held.set(ino, new Set(names)),
      holdsNames: (ino) => held.has(ino),
      addName: (ino, name) => held.get(ino)?.add(name),
      dropNames: (ino) => held.delete(ino),
      clearNames: () => held.clear(),
    },
  });
}

beforeEach(open);
afterEach(() => t.close());

/** Every directory the loop holds (and the kernel can still name) has all of the mirror's names there. */
function expectNoMissingName(): void {
  for (const [ino, names] of held) {
    const path = t.nodes.pathOf(ino);
    const row = t.mirror.vfs.statInode(ino);
    if (path === undefined || row?.type !== "dir") continue;
    for (const entry of t.mirror.vfs.readdir(path).entries)
      expect(names.has(entry.name), `${path}/${entry.name}`).toBe(true);
  }
}

const lookup = (parent: number, name: string) => t.call(OP.lookup, ROOT, parent, name).ino ?? 0;

describe("the FUSE loop's names", () => {
  it("holds a directory's names after a miss there, an empty one it just made, and each name added", () => {
    const d = lookup(ROOT_INO, "d");
    expect(lookup(d, "none")).toBe(0);
    expect([...(held.get(d) ?? [])]).toEqual(["f"]);
    const sub = t.call(OP.mkdir, ROOT, d, 0o755, "sub").ino ?? 0;
    t.call(OP.create, ROOT, d, 0o644, O_RDWR, "g");
    expect([...(held.get(d) ?? [])].sort()).toEqual(["f", "g", "sub"]);
    expect(held.get(sub)?.size).toBe(0);
    t.call(OP.link, ROOT, lookup(d, "f"), d, "hard");
    t.call(OP.symlink, ROOT, d, "soft", "f");
    t.call(OP.mknod, ROOT, d, S_IFIFO | 0o644, 0, "fifo");
    t.call(OP.rename, ROOT, d, d, 0, "g", "moved");
    t.call(OP.rename, ROOT, d, sub, 0, "moved", "in-sub");
    // A name removed stays (a lookup of it goes to the listener): more names, never fewer.
    expect([...(held.get(d) ?? [])].sort()).toEqual(["f", "fifo", "g", "hard", "moved", "soft", "sub"]);
    expect([...(held.get(sub) ?? [])]).toEqual(["in-sub"]);
    t.call(OP.rmdir, ROOT, d, "sub");
    expect(t.mirror.vfs.exists("/d/sub")).toBe(true); // not empty: nothing changed
    t.call(OP.unlink, ROOT, sub, "in-sub");
    t.call(OP.rmdir, ROOT, d, "sub");
    expect(held.has(sub)).toBe(false);
    t.mirror.vfs.writeFile("/d/remote", "r");
    t.fs.invalidate(["/d/remote"]);
    expect(held.size).toBe(0);
  });

  // 100 runs, each over a fresh mirror: ~1.5 s alone, over 5 s on a loaded 2-core machine.
  it("never lacks a name the mirror has, after any sequence of requests", { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(requestSteps(["a", "b", "c"]), (steps) => {
        t.close();
        open();
        runRequestSteps(t, steps, expectNoMissingName);
      }),
      { numRuns: 80 },
    );
  });
});
