/**
 * Pruning of change records and the feed's reset: a reader whose cursor predates pruned
 * deletions starts over, and can then page to the end without being reset again.
 */
import { describe, expect, vfsTest } from "../test/backend.ts";
import { livePaths } from "../test/tree.ts";
import { GC_WINDOW_MS } from "./gc.ts";

describe("pruning and reset", () => {
  vfsTest("a cursor older than pruned deletions gets reset and the full current state", (vfs, { clock }) => {
    vfs.writeFile("/keep", "k");
    const old = String(vfs.rev());
    vfs.writeFile("/gone", "g");
    vfs.unlink("/gone");
    expect(vfs.gc().changesPruned).toBe(0);
    clock.advance(GC_WINDOW_MS / 2);
    expect(vfs.gc().changesPruned).toBe(0);
    clock.advance(GC_WINDOW_MS / 2 + 1);
    const fresh = String(vfs.rev());
    expect(vfs.gc().changesPruned).toBe(1);
    const page = vfs.changes(old);
    expect(page.reset).toBe(true);
    expect(page.changes.map((c) => c.path).sort()).toEqual(["/", "/keep"]);
    expect(page.changes.every((c) => c.stat)).toBe(true);
    const again = vfs.changes(page.cursor);
    expect(again.reset).toBe(false);
    expect(vfs.changes(fresh).reset).toBe(false);
    expect(vfs.changes("0").reset).toBe(false);
  });

  vfsTest(
    "after a reset, paging one change at a time reaches the end without another reset",
    (vfs, { clock }) => {
      for (let i = 0; i < 6; i++) vfs.writeFile(`/f${i}`, `${i}`);
      const old = String(vfs.rev());
      vfs.mkdir("/tmp/deep", { recursive: true });
      vfs.rm("/tmp", { recursive: true });
      vfs.gc();
      clock.advance(GC_WINDOW_MS + 1);
      expect(vfs.gc().changesPruned).toBe(2);
      let page = vfs.changes(old, { limit: 1 });
      expect(page.reset).toBe(true);
      const seen = page.changes.map((c) => c.path);
      while (page.more) {
        page = vfs.changes(page.cursor, { limit: 1 });
        expect(page.reset).toBe(false);
        seen.push(...page.changes.map((c) => c.path));
      }
      expect(seen.sort()).toEqual(livePaths(vfs));
      vfs.writeFile("/later", "x");
      expect(vfs.changes(page.cursor).changes.map((c) => c.path)).toEqual(["/", "/later"]);
    },
  );

  vfsTest("a cursor inside the newest pruned revision is reset too", (vfs, { clock }) => {
    vfs.mkdir("/d");
    vfs.writeFile("/d/a", "a");
    vfs.writeFile("/d/b", "b");
    const before = vfs.rev();
    vfs.rm("/d", { recursive: true });
    const first = vfs.changes(String(before), { limit: 1 });
    expect(first.more).toBe(true);
    vfs.gc();
    clock.advance(GC_WINDOW_MS + 1);
    expect(vfs.gc().changesPruned).toBe(3);
    expect(vfs.changes(first.cursor).reset).toBe(true);
  });
});
