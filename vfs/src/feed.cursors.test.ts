/**
 * The feed's per-change cursors and revision listeners: resuming from the cursor of any change
 * yields exactly the changes after it (nothing lost, nothing twice), also from "0" and across
 * pages; a listener hears each new revision once, and nothing for reads or failures.
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import type { Vfs } from "./vfs.ts";

function key(change: { path: string; rev: number }): string {
  return `${change.rev} ${change.path}`;
}

function busyTree(vfs: Vfs): void {
  vfs.mkdir("/a/b", { recursive: true });
  vfs.writeFile("/a/b/f", "1");
  vfs.writeFile("/a/g", "2");
  vfs.rename("/a/g", "/h");
  vfs.rm("/a/b", { recursive: true });
  vfs.writeFile("/h", "3");
}

describe("per-change cursors", () => {
  vfsTest("resuming from any change's cursor gives exactly the changes after it", (vfs) => {
    busyTree(vfs);
    for (const from of ["0", "1", "3"]) {
      const all = vfs.changes(from);
      expect(all.cursors).toHaveLength(all.changes.length);
      expect(all.cursors.at(-1)).toBe(all.cursor);
      all.cursors.forEach((cursor, i) => {
        const rest = vfs.changes(cursor);
        expect(rest.reset).toBe(false);
        expect(rest.changes.map(key)).toEqual(all.changes.slice(i + 1).map(key));
      });
    }
  });

  vfsTest("paging one at a time by the per-change cursors equals one big page", (vfs) => {
    busyTree(vfs);
    const all = vfs.changes("0");
    const seen: string[] = [];
    let cursor = "0";
    for (;;) {
      const page = vfs.changes(cursor, { limit: 1 });
      seen.push(...page.changes.map(key));
      cursor = page.cursors[0] ?? page.cursor;
      if (!page.more) break;
    }
    expect(seen).toEqual(all.changes.map(key));
    vfs.writeFile("/later", "x");
    expect(vfs.changes(cursor).changes.map((c) => c.path)).toEqual(["/", "/later"]);
  });

  vfsTest("an empty page has no cursors and keeps the position", (vfs) => {
    const at = String(vfs.rev());
    const page = vfs.changes(at);
    expect(page.cursors).toEqual([]);
    expect(page.cursor).toBe(at);
  });
});

describe("revision listeners", () => {
  vfsTest("hear each new revision once; reads, failures and removed listeners hear nothing", (vfs) => {
    const heard: number[] = [];
    const stop = vfs.onRevision((rev) => heard.push(rev));
    vfs.mkdir("/a/b/c", { recursive: true });
    vfs.writeFile("/a/f", "x");
    vfs.stat("/a/f");
    vfs.changes("0");
    expect(() => vfs.mkdir("/a")).toThrow();
    expect(heard).toEqual([2, 3]);
    stop();
    vfs.writeFile("/a/g", "y");
    expect(heard).toEqual([2, 3]);
    expect(vfs.rev()).toBe(4);
  });
});
