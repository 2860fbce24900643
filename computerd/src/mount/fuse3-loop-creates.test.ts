/**
 * The listener's side of the creates the FUSE loop answers (fuse3-loop-creates.ts,
 * native/loop-creates.h): the file is made with exactly the number, owner and time the loop
 * answered, its handle is the loop's, its directory is dated by the create; the loop is given
 * numbers no other node takes and more before it runs out; and a name a remote change brought
 * meanwhile is replaced, or, where it cannot be (a directory), the file lives on under a hidden
 * name while its handle is open.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHandlers, type TestHandlers } from "../../test/mount-harness.ts";
import { INODE_SUPPLY } from "./fuse3-loop-creates.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";

const ROOT = { uid: 0, gid: 0 };
const O_WRONLY = 1;
const FH = 2 ** 42;
const T = { sec: 1_700_000_000, nsec: 250_000_000 };

let t: TestHandlers;
let granted: { first: number; count: number }[];
let enabled: { on: boolean; ids: { lo: number; hi: number } }[];
/** What the loop has left: what was granted, less what a test says it took. */
let left: number;

beforeEach(() => {
  granted = [];
  enabled = [];
  left = 0;
  t = openTestHandlers("computerd-fuse3-loopcreates-", {
    setup: (vfs) => vfs.mkdir("/d"),
    kernel: {
      setLoopCreates: (on, ids) => enabled.push({ on, ids }),
      grantInodes: (first, count) => {
        granted.push({ first, count });
        left += count;
      },
      inodesLeft: () => left,
    },
  });
});
afterEach(() => t.close());

const lookup = (parent: number, name: string) => t.call(OP.lookup, ROOT, parent, name).ino ?? 0;

/** Hands the listener a create the loop answered, as native/loop-changes.c create_here does. */
function answered(
  parent: number,
  name: string,
  ino: number,
  fh: number,
  owner = { uid: 1000, gid: 100 },
): void {
  t.listener(
    OP.create_answered,
    null,
    0,
    0,
    0,
    0,
    parent,
    0o640,
    O_WRONLY,
    ino,
    fh,
    T.sec,
    T.nsec,
    0,
    owner.uid,
    owner.gid,
    name,
  );
}

describe("creates the loop answered", () => {
  it("makes the file with the loop's number, owner, time and handle, and dates its directory", () => {
    const d = lookup(ROOT_INO, "d");
    t.loopCreates.start();
    expect(enabled).toEqual([{ on: true, ids: { lo: 0, hi: 2 ** 32 } }]);
    const ino = granted[0]?.first ?? 0;
    answered(d, "new", ino, FH);
    expect(t.mirror.vfs.stat("/d/new")).toMatchObject({
      ino,
      uid: 1000,
      gid: 100,
      mode: 0o640,
      mtime: T,
      ctime: T,
    });
    expect(t.mirror.vfs.stat("/d")).toMatchObject({ mtime: T, ctime: T });
    expect(t.fs.files.inoOf(FH)).toBe(ino);
    // The handle writes like any other; the lookup of the new name finds it.
    t.fs.write(FH, "/d/new", Buffer.from("bytes"), 0);
    t.listener(OP.release, null, 0, 0, 1, 0, ino, FH);
    expect(lookup(d, "new")).toBe(ino);
    t.fs.flushAll();
    expect(t.mirror.vfs.readText("/d/new")).toBe("bytes");
    expect(t.replies).not.toContainEqual(expect.objectContaining({ kind: "err" }));
  });

  it("gives the loop numbers no other node takes, and more once it runs low", () => {
    t.loopCreates.start();
    const first = granted[0]?.first ?? 0;
    const made = t.call(OP.mkdir, ROOT, ROOT_INO, 0o755, "other").ino ?? 0;
    expect(made < first || made >= first + INODE_SUPPLY).toBe(true);
    const d = lookup(ROOT_INO, "d");
    // Plenty left: nothing more is granted, however many creates JS handles.
    for (let i = 0; i < 100; i++) answered(d, `f${i}`, first + i, FH + i);
    expect(granted).toHaveLength(1);
    left = 10;
    for (let i = 100; i < 200; i++) answered(d, `f${i}`, first + i, FH + i);
    expect(granted).toHaveLength(2);
    const second = granted[1]?.first ?? 0;
    expect(second).toBeGreaterThanOrEqual(first + INODE_SUPPLY);
    answered(d, "next", second, FH + INODE_SUPPLY);
    expect(t.mirror.vfs.stat("/d/next").ino).toBe(second);
  });

  it("replaces a file a remote change put at the name meanwhile", () => {
    const d = lookup(ROOT_INO, "d");
    t.loopCreates.start();
    t.mirror.vfs.writeFile("/d/taken", "remote");
    const ino = granted[0]?.first ?? 0;
    answered(d, "taken", ino, FH);
    expect(t.mirror.vfs.stat("/d/taken")).toMatchObject({ ino, size: 0 });
  });

  it("keeps the file under a hidden name while open where a remote directory took its name", () => {
    const d = lookup(ROOT_INO, "d");
    t.loopCreates.start();
    t.mirror.vfs.mkdir("/d/taken");
    const ino = granted[0]?.first ?? 0;
    answered(d, "taken", ino, FH);
    expect(t.mirror.vfs.stat("/d/taken").type).toBe("dir");
    const hidden = t.mirror.vfs.readdir("/").entries.find((entry) => entry.ino === ino);
    expect(hidden?.name).toMatch(/^\.fuse_hidden/);
    t.fs.write(FH, "", Buffer.from("kept"), 0);
    expect(t.call(OP.getattr, ROOT, ino, FH)).toMatchObject({ kind: "attr", ino });
    // Its last release removes it, as any open file whose last name went.
    t.listener(OP.release, null, 0, 0, 1, 0, ino, FH);
    t.listener(OP.forget, null, 0, 0, 0, 0, ino, 1);
    expect(t.mirror.vfs.readdir("/").entries.some((entry) => entry.ino === ino)).toBe(false);
  });

  it("holds nest: the loop answers again once the last is released, each release counting once", () => {
    t.loopCreates.start();
    const first = t.loopCreates.hold();
    const second = t.loopCreates.hold();
    first();
    first();
    expect(enabled.map((call) => call.on)).toEqual([true, false]);
    second();
    expect(enabled.map((call) => call.on)).toEqual([true, false, true]);
  });
});
