/**
 * Full listings (the sender's feed was pruned past what the receiver read) in the corners the
 * property test found: a sender whose first batch starts over a pruned feed, a path marked for
 * re-sending before the listing began, a listing built before the peer's crossing batch, and a
 * path deleted, pruned and re-created on the sender. Each ends with both trees equal.
 */
import { describe, expect, test } from "vitest";
import { crossing, linkPair, type SyncPair, settle } from "../../test/sync-harness.ts";
import { memorySide, tree } from "../../test/sync-pairs.ts";
import type { Vfs } from "../vfs.ts";

/** Both sides on one manual clock, and a way to prune a side's feed history. */
function newPair(): { pair: SyncPair; prune(vfs: Vfs): void } {
  const clock = { ms: Date.UTC(2026, 0, 1) };
  const side = (name: "do" | "container") => memorySide(name, () => clock.ms);
  return {
    pair: linkPair(side("do"), side("container")),
    prune(vfs) {
      vfs.gc({ windowMs: 0 });
      clock.ms += 10_000;
      expect(vfs.gc({ windowMs: 1 }).changesPruned).toBeGreaterThan(0);
    },
  };
}

describe("full listings", () => {
  test("a sender that never sent, whose feed lost the deletion of a path the peer gave it, lists everything", async () => {
    const { pair, prune } = newPair();
    pair.mirror.vfs.writeFile("/b", "from the container");
    await pair.upload.drain();
    pair.do.vfs.unlink("/b");
    prune(pair.do.vfs);
    const pushed = await pair.push.drain();
    expect(pushed.batches).toBeGreaterThan(0);
    expect(pair.mirror.vfs.exists("/b")).toBe(false);
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a path marked for re-sending before the listing began is still listed", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.writeFile("/a/a", "base", { parents: true });
    await pair.push.drain();
    pair.mirror.vfs.appendFile("/a/a", "+container");
    pair.do.vfs.rm("/a", { recursive: true });
    pair.do.vfs.mkdir("/a/a", { recursive: true });
    pair.do.vfs.writeFile("/c", "a deletion for the pruning");
    pair.do.vfs.unlink("/c");
    // The container's file loses against the DO's directory: the DO marks /a/a for re-sending.
    await crossing(pair);
    prune(pair.do.vfs);
    await settle(pair);
    expect(pair.mirror.vfs.lstat("/a/a").type).toBe("dir");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a parent looked at before the listing began (for a re-sent child) is still listed", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.writeFile("/a/a", "kept", { parents: true });
    pair.do.vfs.writeFile("/b/a", "removed", { parents: true });
    await pair.push.drain();
    pair.do.vfs.rm("/b", { recursive: true });
    await pair.push.drain();
    prune(pair.mirror.vfs);
    prune(pair.do.vfs);
    pair.do.vfs.utimes("/a/a", { sec: 1, nsec: 0 }, { sec: 1, nsec: 7 });
    // The container's listing names /a/a unchanged: the DO keeps its newer /a/a, marked for re-sending.
    await pair.upload.drain();
    await pair.push.drain();
    pair.mirror.vfs.rm("/a", { recursive: true });
    await settle(pair);
    expect(pair.do.vfs.exists("/a")).toBe(false);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a listing built before the peer applied its crossing batch does not delete that batch's paths", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.writeFile("/b", "b");
    pair.do.vfs.unlink("/b");
    await pair.push.drain();
    prune(pair.do.vfs);
    pair.mirror.vfs.writeFile("/a", "new in the container");
    await crossing(pair);
    expect(pair.mirror.vfs.readText("/a")).toBe("new in the container");
    expect(pair.do.vfs.readText("/a")).toBe("new in the container");
    // Both sides still agree on /a: the container's deletion of it reaches the DO.
    pair.mirror.vfs.unlink("/a");
    await settle(pair);
    expect(pair.do.vfs.exists("/a")).toBe(false);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a deletion whose record was pruned reaches a peer that re-sends the path unchanged", async () => {
    const { pair, prune } = newPair();
    pair.mirror.vfs.writeFile("/a/b", "from the container", { parents: true });
    // The DO applies the upload; the container never hears back (settled on reconnect).
    pair.toDo.failNext("applyBatch", "after");
    await expect(pair.upload.drain()).rejects.toThrow();
    pair.toDo.clearFaults();
    pair.do.vfs.unlink("/a/b");
    prune(pair.do.vfs);
    // A link puts /a/b in the container's feed again, unchanged, while the DO's listing crosses.
    pair.mirror.vfs.link("/a/b", "/b");
    await crossing(pair);
    await settle(pair);
    expect(pair.mirror.vfs.exists("/a/b")).toBe(false);
    expect(pair.mirror.vfs.readText("/b")).toBe("from the container");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a listing's stale base for a path our crossing batch agreed on does not replace ours", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.writeFile("/b/a", "from the DO", { parents: true });
    await pair.push.drain();
    pair.do.vfs.rename("/b/a", "/b/b");
    prune(pair.do.vfs);
    pair.mirror.vfs.appendFile("/b/b", "from the container");
    pair.do.vfs.rm("/b", { recursive: true });
    // The DO lists /b/b as deleted with no base: it had not applied the container's /b/b yet.
    await crossing(pair);
    pair.mirror.vfs.rename("/b", "/a");
    await settle(pair);
    expect(pair.do.vfs.exists("/b/b")).toBe(false);
    expect(pair.do.vfs.readText("/a/b")).toBe("from the container");
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a path the peer kept against our crossing listing keeps the peer's state as its base", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.writeFile("/a/a", "x", { parents: true });
    pair.do.vfs.rename("/a", "/b");
    await pair.push.drain();
    pair.mirror.vfs.chmod("/b", 0o600);
    prune(pair.do.vfs);
    // The DO's listing names /b unchanged (0755) while the container's 0600 crosses it.
    await crossing(pair);
    // Back to the state the DO's listing carried: still a change against the agreed 0600.
    pair.do.vfs.chmod("/b", 0o755);
    await settle(pair);
    expect(pair.mirror.vfs.lstat("/b").mode).toBe(0o755);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a path re-created during a lost listing, crossing the peer's deletion of it, ends the same on both", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.writeFile("/b", "from the DO");
    await pair.push.drain();
    pair.do.vfs.unlink("/b");
    pair.mirror.vfs.unlink("/b");
    prune(pair.mirror.vfs);
    // The container's listing is lost on the way: it has forgotten its base of /b, the DO has not.
    pair.toDo.failNext("applyBatch", "before");
    await expect(pair.upload.drain()).rejects.toThrow();
    pair.toDo.clearFaults();
    pair.mirror.vfs.symlink("a", "/b");
    // The DO takes the new /b (nothing agreed on it, says the container) while the container judges
    // the DO's older deletion against it, loses, and keeps its /b as a copy: the DO re-sends /b.
    await crossing(pair);
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    // The container's symlink is kept (at /b or as its copy), nothing else of it existed.
    const links = Object.entries(tree(pair.do.vfs)).filter(([, node]) => node.type === "symlink");
    expect(links.length).toBeGreaterThan(0);
    expect(links.every(([path]) => path.startsWith("/b"))).toBe(true);
  });

  test("a listing lost on the way begins again, though it forgot the bases that asked for it", async () => {
    const { pair, prune } = newPair();
    pair.mirror.vfs.writeFile("/a", "from the container");
    await pair.upload.drain();
    pair.do.vfs.unlink("/a");
    prune(pair.do.vfs);
    // The DO's first batch is a listing (its feed lost the deletion of a path it agreed on); it
    // forgets that path's base as it begins, and the batch never arrives.
    pair.toMirror.failNext("applyBatch", "before");
    await expect(pair.push.drain()).rejects.toThrow();
    pair.toMirror.clearFaults();
    await settle(pair);
    expect(pair.mirror.vfs.exists("/a")).toBe(false);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });

  test("a path the DO marked against the container's crossing change still goes out after its listing", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.symlink("a", "/a");
    pair.mirror.vfs.writeFile("/a/b", "first", { parents: true });
    // The DO's symlink wins /a: the container's directory is kept as a copy, its /a/b agreed.
    await pair.upload.drain();
    pair.do.vfs.unlink("/a");
    pair.mirror.vfs.writeFile("/a/b", "changed on the container");
    prune(pair.do.vfs);
    pair.toMirror.failNext("applyBatch", "before");
    await expect(pair.push.drain()).rejects.toThrow();
    pair.toMirror.clearFaults();
    // The DO's listing (no /a/b) crosses the container's change of /a/b. The DO keeps its
    // deletion (the container's /a/b becomes a copy) and marks /a/b; the container keeps its
    // /a/b against the stale listing. The listing's answer then makes "absent" the DO's base of
    // /a/b: the marked path must still go out, though its state and base agree.
    await crossing(pair);
    await settle(pair);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
    expect(pair.do.vfs.readText("/a/b.conflict-container-e64a3036")).toBe("changed on the container");
  });

  test("a path deleted, pruned and re-created on the sender is sent as new", async () => {
    const { pair, prune } = newPair();
    pair.do.vfs.mkdir("/a");
    await pair.push.drain();
    pair.do.vfs.rmdir("/a");
    prune(pair.do.vfs);
    await pair.push.drain();
    expect(pair.mirror.vfs.exists("/a")).toBe(false);
    pair.do.vfs.writeFile("/a/a", "again", { parents: true });
    await pair.push.drain();
    // The container removes the directory it now has: the DO must learn of it.
    pair.mirror.vfs.rm("/a", { recursive: true });
    await settle(pair);
    expect(pair.do.vfs.exists("/a")).toBe(false);
    expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  });
});
