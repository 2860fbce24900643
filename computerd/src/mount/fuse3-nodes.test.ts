import { describe, expect, it } from "vitest";
import { NodeTable, ROOT_INO } from "./fuse3-nodes.ts";

describe("NodeTable", () => {
  it("rebuilds paths through renamed ancestors", () => {
    const nodes = new NodeTable();
    nodes.looked(2, ROOT_INO, "a");
    nodes.looked(3, 2, "b");
    expect(nodes.pathOf(ROOT_INO)).toBe("/");
    expect(nodes.pathOf(3)).toBe("/a/b");
    expect(nodes.childPath(3, "c")).toBe("/a/b/c");
    nodes.renamed(2, { parent: ROOT_INO, name: "a" }, { parent: ROOT_INO, name: "z" });
    expect(nodes.pathOf(3)).toBe("/z/b");
  });

  it("rebuilds paths of any depth, and answers undefined for a cycle of stale links", () => {
    const nodes = new NodeTable();
    for (let ino = 2; ino < 5002; ino++) nodes.looked(ino, ino === 2 ? ROOT_INO : ino - 1, "d");
    expect(nodes.pathOf(5001)).toHaveLength(2 * 5000);
    nodes.looked(8000, 8001, "a");
    nodes.looked(8001, 8000, "b");
    expect(nodes.pathOf(8000)).toBeUndefined();
  });

  it("keeps the other names of a hard-linked node when one goes", () => {
    const nodes = new NodeTable();
    nodes.looked(5, ROOT_INO, "one");
    nodes.looked(5, ROOT_INO, "two");
    expect(nodes.pathOf(5)).toBe("/two");
    nodes.unlinked(5, ROOT_INO, "two");
    expect(nodes.pathOf(5)).toBe("/one");
    nodes.unlinked(5, ROOT_INO, "one");
    expect(nodes.pathOf(5)).toBeUndefined();
    expect(nodes.has(5)).toBe(true);
  });

  it("drops a node when the kernel forgets every lookup", () => {
    const nodes = new NodeTable();
    nodes.looked(7, ROOT_INO, "f");
    nodes.looked(7, ROOT_INO, "f");
    nodes.forget(7, 1);
    expect(nodes.has(7)).toBe(true);
    nodes.forget(7, 1);
    expect(nodes.has(7)).toBe(false);
    expect(nodes.has(ROOT_INO)).toBe(true);
  });
});
