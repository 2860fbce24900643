/**
 * Directory times through sync, both ways: a directory ends with the sender's mtime and atime,
 * not the moment the receiver created its entries; a change of times alone is sent; both sides
 * adding entries to one directory converge without a reported conflict or a conflict copy, and
 * nothing echoes back. The clock moves between steps, so "now" on the receiver never passes for
 * the sender's times.
 */
import { describe, expect, test } from "vitest";
import { linkPair, type SyncPair, type SyncSide, settle } from "../../test/sync-harness.ts";
import { memorySide, tree } from "../../test/sync-pairs.ts";
import type { Timespec } from "../types.ts";
import type { Vfs } from "../vfs.ts";
import { batchHashes } from "./receive.ts";
import type { SyncConflict } from "./wire.ts";

/** Both sides on one clock that moves a second at every `tick`. */
function newPair(): { pair: SyncPair; tick(): void } {
  const clock = { ms: Date.UTC(2026, 0, 1) };
  const side = (name: "do" | "container") => memorySide(name, () => clock.ms);
  return {
    pair: linkPair(side("do"), side("container")),
    tick: () => {
      clock.ms += 1000;
    },
  };
}

const times = (vfs: Vfs, path: string): [Timespec, Timespec] => {
  const st = vfs.lstat(path);
  return [st.atime, st.mtime];
};

/** Settles, then checks that both trees are equal and that another round sends nothing. */
async function converged(pair: SyncPair): Promise<SyncConflict[]> {
  const reports = await settle(pair);
  expect(tree(pair.mirror.vfs)).toEqual(tree(pair.do.vfs));
  const [pushed, uploaded] = await settle(pair);
  expect([pushed?.changes, uploaded?.changes]).toEqual([0, 0]);
  return reports.flatMap((r) => r.conflicts);
}

for (const direction of ["DO to container", "container to DO"] as const) {
  describe(`directory times, ${direction}`, () => {
    const ends = (pair: SyncPair): { from: SyncSide; to: SyncSide; send(): Promise<unknown> } =>
      direction === "DO to container"
        ? { from: pair.do, to: pair.mirror, send: () => pair.push.drain() }
        : { from: pair.mirror, to: pair.do, send: () => pair.upload.drain() };

    test("times set on directories whose entries come in the same batch arrive as set", async () => {
      const { pair, tick } = newPair();
      const { from, to, send } = ends(pair);
      from.vfs.writeFile("/d/sub/deep.txt", "deep", { parents: true });
      from.vfs.writeFile("/d/top.txt", "top");
      from.vfs.mkdir("/d/empty");
      from.vfs.utimes("/d", { sec: 100, nsec: 1 }, { sec: 200, nsec: 2 });
      from.vfs.utimes("/d/sub", { sec: -300, nsec: 3 }, { sec: 2 ** 33, nsec: 4 });
      tick();
      await send();
      expect(times(to.vfs, "/d")).toEqual([
        { sec: 100, nsec: 1 },
        { sec: 200, nsec: 2 },
      ]);
      expect(times(to.vfs, "/d/sub")).toEqual(times(from.vfs, "/d/sub"));
      expect(times(to.vfs, "/")).toEqual(times(from.vfs, "/"));
      expect(await converged(pair)).toEqual([]);
    });

    test("a directory's mtime moved by a new entry arrives as the sender's, not the apply time", async () => {
      const { pair, tick } = newPair();
      const { from, to, send } = ends(pair);
      from.vfs.mkdir("/d");
      await converged(pair);
      tick();
      from.vfs.writeFile("/d/new.txt", "new");
      from.vfs.unlink("/d/new.txt");
      from.vfs.writeFile("/d/kept.txt", "kept");
      tick();
      await send();
      expect(to.vfs.lstat("/d").mtime).toEqual(from.vfs.lstat("/d").mtime);
      expect(await converged(pair)).toEqual([]);
    });

    test("a change of times alone on a directory with entries is sent", async () => {
      const { pair, tick } = newPair();
      const { from, to, send } = ends(pair);
      from.vfs.writeFile("/d/f.txt", "f", { parents: true });
      await converged(pair);
      tick();
      from.vfs.utimes("/d", { sec: 7, nsec: 8 }, { sec: 9, nsec: 10 });
      tick();
      const report = (await send()) as { changes: number };
      expect(report.changes).toBe(1);
      expect(times(to.vfs, "/d")).toEqual([
        { sec: 7, nsec: 8 },
        { sec: 9, nsec: 10 },
      ]);
      expect(await converged(pair)).toEqual([]);
    });

    test("removing a directory with all its entries is no conflict", async () => {
      const { pair, tick } = newPair();
      const { from, to, send } = ends(pair);
      from.vfs.writeFile("/d/e/f.txt", "f", { parents: true });
      await converged(pair);
      tick();
      from.vfs.rm("/d", { recursive: true });
      tick();
      const report = (await send()) as { conflicts: SyncConflict[] };
      expect(report.conflicts).toEqual([]);
      expect(to.vfs.exists("/d")).toBe(false);
      expect(await converged(pair)).toEqual([]);
    });
  });
}

describe("both sides add entries to one directory", () => {
  for (const order of ["push-first", "upload-first", "crossing"] as const) {
    test(`${order}: both entries on both sides, equal times, no conflict and no copy`, async () => {
      const { pair, tick } = newPair();
      pair.do.vfs.mkdir("/d");
      await converged(pair);
      tick();
      pair.do.vfs.writeFile("/d/from-do", "do");
      tick();
      pair.mirror.vfs.writeFile("/d/from-container", "container");
      tick();
      const conflicts: SyncConflict[] = [];
      if (order === "crossing") {
        await pair.push.connect();
        await pair.upload.connect();
        const up = pair.mirror.endpoint.nextBatch();
        const down = pair.do.endpoint.nextBatch();
        if (!up || !down) throw new Error("expected batches both ways");
        up.batch.blobs = pair.mirror.endpoint.getBlobs(batchHashes(up.batch.changes));
        down.batch.blobs = pair.do.endpoint.getBlobs(batchHashes(down.batch.changes));
        const atDo = pair.do.endpoint.applyBatch(structuredClone(up.batch));
        const atMirror = pair.mirror.endpoint.applyBatch(structuredClone(down.batch));
        pair.mirror.endpoint.acknowledge(up.batch, atDo);
        pair.do.endpoint.acknowledge(down.batch, atMirror);
        conflicts.push(...atDo.conflicts, ...atMirror.conflicts);
      } else {
        const first = order === "push-first" ? pair.push : pair.upload;
        conflicts.push(...(await first.drain()).conflicts);
      }
      conflicts.push(...(await converged(pair)));
      expect(conflicts).toEqual([]);
      expect(pair.do.vfs.list("/d").map((e) => e.name)).toEqual(["from-container", "from-do"]);
      expect(pair.mirror.vfs.lstat("/d").mtime).toEqual(pair.do.vfs.lstat("/d").mtime);
    });
  }

  test("a directory whose mode changed on both sides is still a reported attributes conflict", async () => {
    const { pair, tick } = newPair();
    pair.do.vfs.mkdir("/d");
    await converged(pair);
    tick();
    pair.do.vfs.chmod("/d", 0o700);
    pair.mirror.vfs.chmod("/d", 0o750);
    const conflicts = (await pair.upload.drain()).conflicts;
    conflicts.push(...(await converged(pair)));
    expect(conflicts).toEqual([{ path: "/d", winner: "do", reason: "attributes" }]);
    expect(pair.mirror.vfs.lstat("/d").mode & 0o777).toBe(0o700);
  });
});
