/**
 * rename with `exchange` (renameat2 RENAME_EXCHANGE) across sync, in both directions: swapped
 * files, symlinks, special files and whole directories (also a file with a directory, across
 * parents) reach the other side as the sender's tree, by hash without re-sending content,
 * in batches split anywhere, with hard-link groups kept, nothing echoed back, and no version
 * lost when the receiver changed a swapped path meanwhile.
 */
import { describe, expect, test } from "vitest";
import { contents, type SyncPair, settle } from "../../test/sync-harness.ts";
import { newPair, tree } from "../../test/sync-pairs.ts";
import type { Vfs } from "../vfs.ts";
import type { DrainOptions } from "./session.ts";

const exchange = { exchange: true };

/** The side that swaps, the side that receives, and the two sends. */
interface Direction {
  src: Vfs;
  dst: Vfs;
  send(options?: DrainOptions): ReturnType<SyncPair["push"]["drain"]>;
  sendBack(): ReturnType<SyncPair["push"]["drain"]>;
}

function direction(pair: SyncPair, from: "do" | "mirror"): Direction {
  return from === "do"
    ? {
        src: pair.do.vfs,
        dst: pair.mirror.vfs,
        send: (o) => pair.push.drain(o),
        sendBack: () => pair.upload.drain(),
      }
    : {
        src: pair.mirror.vfs,
        dst: pair.do.vfs,
        send: (o) => pair.upload.drain(o),
        sendBack: () => pair.push.drain(),
      };
}

/** Two parents, each with a subtree, a file, a symlink and a fifo; some names exist in both subtrees. */
function swapTree(vfs: Vfs): void {
  vfs.mkdir("/x/one/deep", { recursive: true });
  vfs.writeFile("/x/one/deep/f", "one-deep");
  vfs.writeFile("/x/one/both", "one-both");
  vfs.writeFile("/x/file", "x-file");
  vfs.symlink("one/both", "/x/link");
  vfs.mkdir("/y/two/only-two", { recursive: true });
  vfs.writeFile("/y/two/both", "two-both");
  vfs.writeFile("/y/two/only-two/g", "two-g");
  vfs.writeFile("/y/file", "y-file");
  vfs.mknod("/y/pipe", "fifo", 0o640);
}

for (const from of ["do", "mirror"] as const) {
  describe(`rename exchange made by the ${from === "do" ? "DO" : "container"}`, () => {
    test("files, a symlink with a fifo, two directories, a directory with a file: the receiver ends with the same tree", async () => {
      const pair = newPair();
      const { src, dst, send, sendBack } = direction(pair, from);
      swapTree(src);
      await settle(pair);
      src.rename("/x/file", "/y/file", exchange);
      src.rename("/x/link", "/y/pipe", exchange);
      src.rename("/x/one", "/y/two", exchange);
      const report = await send();
      expect(report.conflicts).toEqual([]);
      // Every content is already on the receiver: a swap moves names, not bytes.
      expect(report.blobs).toBe(0);
      expect(tree(dst)).toEqual(tree(src));
      expect(dst.readText("/x/one/only-two/g")).toBe("two-g");
      expect(dst.exists("/x/one/deep")).toBe(false);
      expect((await sendBack()).changes).toBe(0);

      // A directory swapped with a file in another parent: the subdirectory counts follow.
      src.rename("/x/one", "/y/file", exchange);
      await send();
      expect(tree(dst)).toEqual(tree(src));
      expect(dst.lstat("/y/file").type).toBe("dir");
      expect([dst.lstat("/x").nlink, dst.lstat("/y").nlink]).toEqual([2, 4]);
      expect((await sendBack()).changes).toBe(0);
    });

    for (const maxChanges of [1, 2, 3]) {
      test(`a swap of two directories split over batches of ${maxChanges} change(s) converges`, async () => {
        const pair = newPair();
        const { src, dst, send } = direction(pair, from);
        swapTree(src);
        await settle(pair);
        src.rename("/x/one", "/y/two", exchange);
        src.rename("/x/file", "/y/two", exchange);
        await send({ limits: { maxChanges } });
        const reports = await settle(pair);
        expect(reports.flatMap((r) => r.conflicts)).toEqual([]);
        expect(tree(dst)).toEqual(tree(src));
        expect(dst.readText("/x/file/deep/f")).toBe("one-deep");
      });
    }

    test("a hard-linked file swapped with a single file keeps its group on the receiver", async () => {
      const pair = newPair();
      const { src, dst, send } = direction(pair, from);
      src.writeFile("/a", "linked");
      src.mkdir("/d");
      src.link("/a", "/d/other-name");
      src.writeFile("/d/b", "single");
      await settle(pair);
      src.rename("/a", "/d/b", exchange);
      await send();
      expect(tree(dst)).toEqual(tree(src));
      expect(dst.lstat("/d/b").ino).toBe(dst.lstat("/d/other-name").ino);
      expect(dst.lstat("/a").nlink).toBe(1);
    });

    test("the receiver's write inside a swapped directory meanwhile is not lost", async () => {
      const pair = newPair();
      const { src, dst } = direction(pair, from);
      swapTree(src);
      await settle(pair);
      src.rename("/x/one", "/y/two", exchange);
      dst.writeFile("/x/one/both", "edited on the receiver");
      dst.writeFile("/y/two/new", "created on the receiver");
      const reports = await settle(pair);
      expect(tree(dst)).toEqual(tree(src));
      const found = contents(src);
      for (const text of [
        "edited on the receiver",
        "created on the receiver",
        "one-deep",
        "two-g",
        "two-both",
      ])
        expect(found, text).toContain(text);
      // A conflict copy, if any, is reported, never silent.
      const copies = reports.flatMap((r) => r.conflicts).map((c) => c.copy);
      for (const copy of copies) if (copy) expect(src.exists(copy), copy).toBe(true);
    });
  });
}
