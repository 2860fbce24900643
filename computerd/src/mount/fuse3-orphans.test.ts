import { describe, expect, it } from "vitest";
import { ROOT_INO } from "./fuse3-nodes.ts";
import { Orphans } from "./fuse3-orphans.ts";

describe("Orphans", () => {
  it("hands back the hidden path only at the last release of a hidden file", () => {
    const orphans = new Orphans();
    orphans.opened(7);
    orphans.opened(7);
    expect(orphans.isOpen(7)).toBe(true);
    const name = orphans.hiddenName(7);
    expect(name).toMatch(/^\.fuse_hidden/);
    // Picking a name records nothing: the move to it may still fail.
    expect(orphans.isHidden(7)).toBe(false);
    orphans.hide(7, name);
    expect(orphans.isHidden(7)).toBe(true);
    expect(orphans.conceals(ROOT_INO, name)).toBe(true);
    expect(orphans.conceals(5, name)).toBe(false);
    expect(orphans.released(7, false)).toBeUndefined();
    expect(orphans.released(7, false)).toBe(`/${name}`);
    expect(orphans.isHidden(7)).toBe(false);
    expect(orphans.conceals(ROOT_INO, name)).toBe(false);
    expect(orphans.isOpen(7)).toBe(false);
  });

  it("keeps a hidden file released while the kernel holds its node until the kernel forgets it", () => {
    // Removed at once, its inode number could name a new file before the kernel's forget of
    // the old one arrived (the vfs hands freed numbers out again).
    const orphans = new Orphans();
    orphans.opened(7);
    const name = orphans.hiddenName(7);
    orphans.hide(7, name);
    expect(orphans.released(7, true)).toBeUndefined();
    expect([orphans.isHidden(7), orphans.conceals(ROOT_INO, name)]).toEqual([true, true]);
    expect(orphans.forgotten(7)).toBe(`/${name}`);
    expect([orphans.isHidden(7), orphans.conceals(ROOT_INO, name)]).toEqual([false, false]);
    expect(orphans.forgotten(7)).toBeUndefined();
  });

  it("gives each hidden file its own name and leaves files never hidden alone", () => {
    const orphans = new Orphans();
    orphans.opened(3);
    expect(orphans.released(3, false)).toBeUndefined();
    expect(orphans.forgotten(3)).toBeUndefined();
    expect(orphans.hiddenName(4)).not.toBe(orphans.hiddenName(4));
  });

  it("keeps a removed directory's attributes with nlink 0 until the kernel forgets it", () => {
    const orphans = new Orphans();
    const stat = { ino: 9, type: "dir", nlink: 2 } as Parameters<Orphans["dirRemoved"]>[0];
    orphans.dirRemoved(stat);
    expect(orphans.removedDir(9)?.nlink).toBe(0);
    expect(stat.nlink).toBe(2);
    orphans.forgotten(9);
    expect(orphans.removedDir(9)).toBeUndefined();
  });
});
