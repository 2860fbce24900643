/**
 * Hard links across sync, two-sided and in both directions: names that share an inode on the
 * sender share one on the receiver (same nlink, one inode, a write through any name seen by
 * all), through links added later, unlinks, renames, batches split anywhere, conflicts, full
 * listings and re-seeds; and sync never links files the sender did not link, nor writes
 * through a path into local names the sender does not list.
 */
import { describe, expect, test } from "vitest";
import { contents, crossing, linkPair, type SyncPair, settle } from "../../test/sync-harness.ts";
import { memorySide, newPair, tree } from "../../test/sync-pairs.ts";
import { sha256Hex } from "../node.ts";
import type { Vfs } from "../vfs.ts";
import { conflictCopyPath } from "./conflict.ts";
import { DEFAULT_LIMITS } from "./outbox.ts";
import type { DrainOptions } from "./session.ts";
import { fingerprint, readState } from "./state.ts";

/** The two ends of one direction: the side that changes, the side that receives, and the send. */
interface Direction {
  src: Vfs;
  dst: Vfs;
  send(options?: DrainOptions): Promise<unknown>;
}

function direction(pair: SyncPair, from: "do" | "mirror"): Direction {
  return from === "do"
    ? { src: pair.do.vfs, dst: pair.mirror.vfs, send: (o) => pair.push.drain(o) }
    : { src: pair.mirror.vfs, dst: pair.do.vfs, send: (o) => pair.upload.drain(o) };
}

/** The inode numbers of `paths` on `vfs`, as group labels: equal labels = one inode. */
function groups(vfs: Vfs, paths: string[]): number[] {
  const seen = new Map<number, number>();
  return paths.map((path) => {
    const ino = vfs.lstat(path).ino;
    if (!seen.has(ino)) seen.set(ino, seen.size);
    return seen.get(ino) ?? -1;
  });
}

for (const from of ["do", "mirror"] as const) {
  describe(`hard links sent by the ${from === "do" ? "DO" : "container"}`, () => {
    test("names created as links arrive as one inode, across directories, with the sender's nlink", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/src/a.txt", "shared", { parents: true });
      src.mkdir("/other/deep", { recursive: true });
      src.link("/src/a.txt", "/other/deep/b.txt");
      src.link("/src/a.txt", "/c.txt");
      src.writeFile("/single", "one name");
      await send();
      expect(groups(dst, ["/src/a.txt", "/other/deep/b.txt", "/c.txt", "/single"])).toEqual([0, 0, 0, 1]);
      expect(dst.lstat("/c.txt").nlink).toBe(3);
      expect(dst.lstat("/single").nlink).toBe(1);
      expect(dst.readText("/other/deep/b.txt")).toBe("shared");
      expect(tree(dst)).toEqual(tree(src));
      // What the receiver applied is not sent back (echo records hold for the linked names too).
      const back = await (from === "do" ? pair.upload : pair.push).drain();
      expect(back.changes).toBe(0);
      // A write through one name on the receiver reaches every name: they are one inode.
      dst.appendFile("/c.txt", "!");
      expect(dst.readText("/src/a.txt")).toBe("shared!");
      await settle(pair);
      expect(tree(dst)).toEqual(tree(src));
      expect(src.readText("/other/deep/b.txt")).toBe("shared!");
    });

    test("a link added to a synced file becomes a link there, without a conflict on the old name", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "old name");
      src.writeFile("/keep", "k");
      await settle(pair);
      src.link("/a", "/b");
      src.link("/keep", "/keep2");
      // The receiver changes the old name meanwhile: its nlink/ctime moved on the sender, not its state.
      dst.writeFile("/keep", "changed on the receiver");
      const report = (await send()) as { conflicts: unknown[] };
      expect(report.conflicts).toEqual([]);
      expect(groups(dst, ["/a", "/b"])).toEqual([0, 0]);
      expect(dst.lstat("/a").nlink).toBe(2);
      expect(dst.readText("/keep")).toBe("changed on the receiver");
      const reports = await settle(pair);
      expect(reports.flatMap((r) => r.conflicts)).toEqual([]);
      expect(tree(dst)).toEqual(tree(src));
      // The receiver's write wins at /keep; the new name was made from the state it was linked
      // to, which the receiver no longer had: it stays a separate file with that content.
      expect(src.readText("/keep")).toBe("changed on the receiver");
      expect(src.readText("/keep2")).toBe("k");
      expect(src.lstat("/keep").nlink).toBe(1);
    });

    test("unlinking one name keeps the others, and nlink drops on the receiver", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "x");
      src.link("/a", "/b");
      src.mkdir("/d");
      src.link("/a", "/d/c");
      await settle(pair);
      expect(dst.lstat("/a").nlink).toBe(3);
      src.unlink("/a");
      await send();
      expect(dst.exists("/a")).toBe(false);
      expect(groups(dst, ["/b", "/d/c"])).toEqual([0, 0]);
      expect(dst.lstat("/b").nlink).toBe(2);
      src.unlink("/d/c");
      await send();
      expect(dst.lstat("/b").nlink).toBe(1);
      expect(dst.readText("/b")).toBe("x");
      expect(tree(dst)).toEqual(tree(src));
    });

    test("renaming one name (into another directory) keeps it in the group", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "x");
      src.link("/a", "/b");
      await settle(pair);
      src.mkdir("/moved");
      src.rename("/b", "/moved/b2");
      await send();
      expect(dst.exists("/b")).toBe(false);
      expect(groups(dst, ["/a", "/moved/b2"])).toEqual([0, 0]);
      // Both names renamed: the group is rebuilt from the blobs the receiver has.
      src.rename("/a", "/a2");
      src.rename("/moved/b2", "/b3");
      await send();
      expect(groups(dst, ["/a2", "/b3"])).toEqual([0, 0]);
      expect(dst.lstat("/b3").nlink).toBe(2);
      expect(tree(dst)).toEqual(tree(src));
    });

    test("a write through one name reaches every name on the receiver", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "v1");
      src.mkdir("/x");
      src.link("/a", "/x/b");
      await settle(pair);
      const ino = dst.lstat("/a").ino;
      src.writeFile("/x/b", "version two");
      src.chmod("/a", 0o600);
      await send();
      expect(dst.readText("/a")).toBe("version two");
      expect(dst.lstat("/x/b")).toMatchObject({ ino, nlink: 2, mode: 0o600 });
      expect(tree(dst)).toEqual(tree(src));
    });

    test("replacing one name by a new file (an editor's save) leaves the other name's content", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "original");
      src.link("/a", "/b");
      await settle(pair);
      src.writeFile("/a.tmp", "edited");
      src.rename("/a.tmp", "/a");
      await send();
      expect(dst.readText("/a")).toBe("edited");
      expect(dst.readText("/b")).toBe("original");
      expect(dst.lstat("/b").nlink).toBe(1);
      await settle(pair);
      expect(tree(dst)).toEqual(tree(src));
      expect(src.readText("/b")).toBe("original");
    });

    for (const maxChanges of [1, 2, 3]) {
      test(`a group split over batches of ${maxChanges} change(s), in any depth order, ends as one inode`, async () => {
        const pair = newPair();
        const { src, dst, send } = direction(pair, from);
        const names = ["/z", "/a/b/c/deep", "/m/n", "/a/b/c/zz", "/b"];
        src.writeFile("/m/n", "content", { parents: true });
        src.mkdir("/a/b/c", { recursive: true });
        for (const name of names) if (name !== "/m/n") src.link("/m/n", name);
        src.writeFile("/m/other", "not linked");
        await send({ limits: { maxChanges } });
        expect(groups(dst, [...names, "/m/other"])).toEqual([0, 0, 0, 0, 0, 1]);
        expect(dst.lstat("/z").nlink).toBe(names.length);
        expect(tree(dst)).toEqual(tree(src));
        // A write then goes through one batch per name, and the group stays whole.
        src.writeFile("/b", "changed");
        await send({ limits: { maxChanges } });
        expect(groups(dst, names)).toEqual([0, 0, 0, 0, 0]);
        expect(dst.readText("/a/b/c/deep")).toBe("changed");
        const [pushed, uploaded] = await settle(pair);
        expect(tree(dst)).toEqual(tree(src));
        expect([pushed?.conflicts, uploaded?.conflicts]).toEqual([[], []]);
      });
    }

    test("a name whose mate the receiver changed meanwhile is not linked to that change", async () => {
      const pair = newPair();
      const { src, dst } = direction(pair, from);
      src.writeFile("/a", "same");
      src.writeFile("/b", "other");
      await settle(pair);
      // The sender makes /b a link to /a; the receiver changed /b meanwhile.
      src.unlink("/b");
      src.link("/a", "/b");
      dst.writeFile("/b", "the receiver's own");
      await settle(pair);
      expect(tree(dst)).toEqual(tree(src));
      for (const vfs of [src, dst]) expect([...contents(vfs)].sort()).toEqual(["same", "the receiver's own"]);
      // The DO's version of /b wins; the container's is kept as a copy. Only what the container
      // had linked to /a (its own /b, when it made the link) is linked to /a.
      const copies = src.list("/").filter((e) => e.name.startsWith("b.conflict-container-"));
      expect(copies).toHaveLength(1);
      const copy = `/${copies[0]?.name}`;
      if (from === "do") {
        expect(groups(src, ["/a", "/b", copy])).toEqual([0, 0, 1]);
        expect(src.readText(copy)).toBe("the receiver's own");
      } else {
        expect(groups(src, ["/a", copy, "/b"])).toEqual([0, 0, 1]);
        expect(src.readText("/b")).toBe("the receiver's own");
      }
    });

    test("the receiver never writes through a path into a name the sender does not link to it", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/p", "p1");
      await settle(pair);
      // A link made on the receiver only, not synced yet, then the sender writes /p.
      dst.link("/p", "/r");
      src.writeFile("/p", "p2 from the sender");
      await send();
      expect(dst.readText("/p")).toBe("p2 from the sender");
      expect(dst.readText("/r")).toBe("p1");
      expect(dst.lstat("/r").nlink).toBe(1);
      await settle(pair);
      expect(tree(dst)).toEqual(tree(src));
    });

    test("a full listing (pruned feed) and a re-seed rebuild the groups", async () => {
      let now = 1_000_000;
      const srcSide = memorySide(from === "do" ? "do" : "container", () => now);
      const dstSide = memorySide(from === "do" ? "container" : "do", () => now);
      const pair = from === "do" ? linkPair(srcSide, dstSide) : linkPair(dstSide, srcSide);
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "group one");
      src.link("/a", "/b");
      src.writeFile("/gone", "g");
      src.link("/gone", "/gone2");
      await settle(pair);
      src.unlink("/gone");
      src.link("/a", "/c");
      src.gc({ windowMs: 0 });
      now += 10_000;
      expect(src.gc({ windowMs: 1 }).changesPruned).toBeGreaterThan(0);
      await send();
      expect(groups(dst, ["/a", "/b", "/c", "/gone2"])).toEqual([0, 0, 0, 1]);
      expect(dst.exists("/gone")).toBe(false);
      expect(tree(dst)).toEqual(tree(src));

      // An empty peer (restarted without state) is re-seeded, groups included.
      const fresh = memorySide(from === "do" ? "container" : "do", () => now);
      const reseeded = from === "do" ? linkPair(srcSide, fresh) : linkPair(fresh, srcSide);
      await settle(reseeded);
      expect(groups(fresh.vfs, ["/a", "/b", "/c", "/gone2"])).toEqual([0, 0, 0, 1]);
      expect(tree(fresh.vfs)).toEqual(tree(src));
    });
  });
}

describe("conflicts on a linked set", () => {
  test("both sides write through the group: the DO's group stays, the container's is kept as linked copies", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/a", "base");
    pair.do.vfs.link("/a", "/b");
    await settle(pair);
    pair.do.vfs.writeFile("/a", "from the DO");
    pair.mirror.vfs.writeFile("/b", "from the container");
    const reports = await settle(pair);
    expect(reports.flatMap((r) => r.conflicts).map((c) => c.reason)).toContain("content");
    for (const vfs of [pair.do.vfs, pair.mirror.vfs]) {
      expect(groups(vfs, ["/a", "/b"])).toEqual([0, 0]);
      expect(vfs.readText("/b")).toBe("from the DO");
      const copies = vfs
        .list("/")
        .filter((e) => e.name.includes(".conflict-container-"))
        .map((e) => `/${e.name}`);
      expect(copies).toHaveLength(2);
      expect(copies.map((c) => vfs.readText(c))).toEqual(["from the container", "from the container"]);
      expect(groups(vfs, copies)).toEqual([0, 0]);
    }
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a conflict on one name moves only that name aside: the other names keep the winner's content", async () => {
    const pair = newPair();
    pair.do.vfs.writeFile("/a", "base");
    pair.do.vfs.link("/a", "/b");
    pair.do.vfs.link("/a", "/c");
    await settle(pair);
    // The DO writes through the group; the container replaces one name by its own file.
    pair.do.vfs.writeFile("/a", "from the DO");
    pair.mirror.vfs.unlink("/b");
    pair.mirror.vfs.writeFile("/b", "the container's b");
    const copyFp = fingerprint(readState(pair.mirror.vfs, pair.mirror.sql, "/b"), sha256Hex);
    await settle(pair);
    const copy = conflictCopyPath("/b", copyFp);
    for (const vfs of [pair.do.vfs, pair.mirror.vfs]) {
      expect(groups(vfs, ["/a", "/b", "/c"])).toEqual([0, 0, 0]);
      expect(vfs.readText("/c")).toBe("from the DO");
      expect(vfs.readText(copy)).toBe("the container's b");
      expect(vfs.lstat(copy).nlink).toBe(1);
    }
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});

/** A pair on one manual clock; `step` runs an operation one millisecond after the last. */
function clockedPair(): { pair: SyncPair; step<T>(op: () => T): T } {
  const clock = { ms: Date.UTC(2026, 0, 1) };
  const side = (name: "do" | "container") => memorySide(name, () => clock.ms);
  return {
    pair: linkPair(side("do"), side("container")),
    step(op) {
      clock.ms++;
      return op();
    },
  };
}

/** Settles both ways: the trees end equal, and a second settle sends nothing. */
async function expectSettledEqual(pair: SyncPair): Promise<void> {
  await settle(pair);
  expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  const [pushed, uploaded] = await settle(pair);
  expect([pushed?.changes, uploaded?.changes]).toEqual([0, 0]);
}

describe("crossing batches", () => {
  test("groups rearranged in opposite ways by crossing batches end equal", async () => {
    const { pair, step } = clockedPair();
    const { do: doSide, mirror } = pair;
    mirror.vfs.writeFile("/b", "container");
    mirror.vfs.link("/b", "/a");
    doSide.vfs.writeFile("/b", "do");
    // The DO's /b wins; the container's group {/a, /b} becomes {/a, <copy of /b>}.
    await crossing(pair);
    step(() => mirror.vfs.link("/a", "/l"));
    doSide.vfs.writeFile("/a", "do again");
    // The container links /l into the group the DO's crossing batch takes apart.
    await crossing(pair);
    await expectSettledEqual(pair);
  });

  test("a name relinked into its group in another directory leaves that directory's times alone", async () => {
    const { pair, step } = clockedPair();
    const { do: doSide, mirror } = pair;
    step(() => doSide.vfs.writeFile("/b/a", "shared", { parents: true }));
    step(() => doSide.vfs.mkdir("/a"));
    await pair.push.drain();
    step(() => doSide.vfs.setxattr("/a", "user.tag", new TextEncoder().encode("x"), {}, false));
    step(() => mirror.vfs.link("/b/a", "/a/a"));
    step(() => doSide.vfs.link("/b/a", "/a/l"));
    // Each side takes the other's group apart; settling then joins /b/a to /a/a's inode on the
    // container, which must not stamp /b (its names did not change) after the DO sent its times.
    await crossing(pair);
    await expectSettledEqual(pair);
  });

  test("names a regrouping leaves on their old inode are sent again, so crossing groups end equal", async () => {
    const { pair, step } = clockedPair();
    const { do: doSide, mirror } = pair;
    step(() => doSide.vfs.symlink("a", "/a"));
    step(() => mirror.vfs.writeFile("/a", "the container's", { parents: true }));
    step(() => mirror.vfs.link("/a", "/b"));
    // The DO's symlink wins /a: the container's group becomes {<copy of /a>, /b} on both sides.
    await crossing(pair);
    step(() => doSide.vfs.link("/b", "/l"));
    // The DO sends {/b, /l} while the container sends {copy, /b}: each side moves /b to the
    // other's group and leaves a name behind (/l on the DO, the copy on the container). Those
    // names changed group though no change named them: they are sent again.
    await crossing(pair);
    await pair.upload.drain({ limits: { ...DEFAULT_LIMITS, maxChanges: 1 } });
    await expectSettledEqual(pair);
  });

  test("a name detached by a crossing batch is sent back against the state the peer sent", async () => {
    const { pair, step } = clockedPair();
    const { do: doSide, mirror } = pair;
    doSide.vfs.writeFile("/b", "base");
    await pair.push.drain();
    step(() => mirror.vfs.appendFile("/b", "+container"));
    doSide.vfs.link("/b", "/a");
    // The DO takes the container's /b apart from /a; the container keeps its /b.
    await crossing(pair);
    step(() => mirror.vfs.writeFile("/b", "the container's latest"));
    await crossing(pair);
    await settle(pair);
    for (const vfs of [doSide.vfs, mirror.vfs]) expect(vfs.readText("/b")).toBe("the container's latest");
    expect(tree(mirror.vfs)).toEqual(tree(doSide.vfs));
  });
});
