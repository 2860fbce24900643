/**
 * Receiving batches, on both SQL backends (inside a Durable Object under vfs-workerd): a batch
 * applies entirely or not at all (files, ledger and cursor), once per id, only at the cursor
 * the receiver is at, only with its blobs present, and only when well formed.
 */
import { describe, expect, sha256Hex, vfsTest } from "../../test/backend.ts";
import { expectFails } from "../../test/snapshot.ts";
import { isFsError } from "../errors.ts";
import type { SqlLike } from "../sql.ts";
import type { Vfs } from "../vfs.ts";
import { SyncEndpoint } from "./endpoint.ts";
import { readState } from "./state.ts";
import type { BlobData, SyncBatch, SyncChange } from "./wire.ts";

const PEER = "peer-endpoint";

function receiver(vfs: Vfs, sql: SqlLike): SyncEndpoint {
  const endpoint = new SyncEndpoint(vfs, sql, { side: "do", sha256: sha256Hex });
  endpoint.hello({ id: PEER, side: "container", received: { peer: null, cursor: "0", lastBatch: null } });
  return endpoint;
}

/** A change that gives `to` the current state of `from` (whose blobs are therefore present). */
function changeFrom(vfs: Vfs, sql: SqlLike, from: string, to: string, base = ""): SyncChange {
  const state = readState(vfs, sql, from);
  if (!state) throw new Error(`nothing at ${from}`);
  return { path: to, rev: 1, base, ...state };
}

function batch(id: string, changes: SyncChange[], baseCursor = "0", cursor = "7:/x"): SyncBatch {
  return { id, from: PEER, baseCursor, cursor, changes };
}

function baseRows(sql: SqlLike): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sync_base")[0]?.n ?? 0;
}

describe("a batch applies atomically", () => {
  vfsTest("a failure mid-batch leaves files, ledger and cursor as they were", (vfs, { sql }) => {
    vfs.writeFile("/src/a", "aaa", { parents: true });
    vfs.writeFile("/src/b", "bbb");
    vfs.symlink("a", "/src/link");
    const endpoint = receiver(vfs, sql);
    const broken = { ...changeFrom(vfs, sql, "/src/link", "/dst/z"), target: "" };
    const good = [changeFrom(vfs, sql, "/src/a", "/dst/a"), changeFrom(vfs, sql, "/src/b", "/dst/b")];
    const rev = vfs.rev();
    const rows = baseRows(sql);
    expect(() => endpoint.applyBatch(batch("b1", [...good, broken]))).toThrow();
    expect(vfs.exists("/dst")).toBe(false);
    expect(vfs.rev()).toBe(rev);
    expect(baseRows(sql)).toBe(rows);
    expect(endpoint.helloInfo().received).toEqual({ peer: PEER, cursor: "0", lastBatch: null });

    const result = endpoint.applyBatch(batch("b1", good));
    expect(result.status).toBe("applied");
    expect(vfs.readText("/dst/b")).toBe("bbb");
    expect(endpoint.helloInfo().received).toEqual({ peer: PEER, cursor: "7:/x", lastBatch: "b1" });
  });

  vfsTest("running out of quota mid-batch applies nothing", (vfs, { sql }) => {
    vfs.writeFile("/src/small", "s", { parents: true });
    vfs.writeFile("/src/big", new Uint8Array(4096).fill(1));
    const endpoint = receiver(vfs, sql);
    vfs.setQuota(vfs.usage().usedBytes + 100);
    const changes = [changeFrom(vfs, sql, "/src/small", "/a"), changeFrom(vfs, sql, "/src/big", "/z")];
    expect(() => endpoint.applyBatch(batch("q", changes))).toThrow(
      expect.objectContaining({ code: "ENOSPC" }),
    );
    expect(vfs.exists("/a")).toBe(false);
  });
});

describe("a batch applies once", () => {
  vfsTest("the same id again answers the first result and changes nothing", (vfs, { sql }) => {
    vfs.writeFile("/src/a", "aaa", { parents: true });
    const endpoint = receiver(vfs, sql);
    const first = endpoint.applyBatch(batch("once", [changeFrom(vfs, sql, "/src/a", "/a")]));
    const rev = vfs.rev();
    expect(endpoint.applyBatch(batch("once", [changeFrom(vfs, sql, "/src/a", "/a")]))).toEqual({
      ...first,
      status: "duplicate",
    });
    expect(vfs.rev()).toBe(rev);
    // Applying the same states under a new id is a no-op too: application is state-based.
    const again = endpoint.applyBatch(batch("twice", [changeFrom(vfs, sql, "/src/a", "/a")], "7:/x", "8:/y"));
    expect(again.status).toBe("applied");
    expect(vfs.rev()).toBe(rev);
  });

  vfsTest("a batch not at the receiver's cursor, or from an unknown sender, is stale", (vfs, { sql }) => {
    vfs.writeFile("/src/a", "aaa", { parents: true });
    const endpoint = receiver(vfs, sql);
    const change = changeFrom(vfs, sql, "/src/a", "/a");
    expect(endpoint.applyBatch(batch("s1", [change], "3:/q")).status).toBe("stale");
    expect(endpoint.applyBatch({ ...batch("s2", [change]), from: "someone-else" }).status).toBe("stale");
    expect(vfs.exists("/a")).toBe(false);
  });
});

describe("blobs and validation", () => {
  vfsTest("a batch whose blobs are missing applies nothing until they come", (vfs, { sql }) => {
    const endpoint = receiver(vfs, sql);
    const data = new TextEncoder().encode("remote content");
    const hash = sha256Hex(data);
    const change: SyncChange = {
      path: "/f",
      rev: 1,
      base: "",
      stat: { ...vfs.lstat("/"), type: "file", mode: 0o644, size: data.length, nlink: 1 },
      chunks: [hash],
    };
    const missing = endpoint.applyBatch(batch("m", [change]));
    expect(missing).toMatchObject({ status: "missing", missing: [hash] });
    expect(vfs.exists("/f")).toBe(false);
    const applied = endpoint.applyBatch({ ...batch("m", [change]), blobs: [{ hash, data }] });
    expect(applied.status).toBe("applied");
    expect(vfs.readText("/f")).toBe("remote content");
    expect(() => endpoint.putBlobs([{ hash, data: new Uint8Array([1]) }])).toThrow(/does not match/);
  });

  vfsTest("putBlobs stores many blobs at once, and none when one does not match its hash", (vfs, { sql }) => {
    const endpoint = receiver(vfs, sql);
    const blobs = ["one", "two", "three"].map((text) => {
      const data = new TextEncoder().encode(text);
      return { hash: sha256Hex(data), data };
    });
    const [one, two, three] = blobs as [BlobData, BlobData, BlobData];
    expectFails(sql, "EINVAL", () => endpoint.putBlobs([one, { hash: two.hash, data: three.data }]));
    expect(endpoint.missingBlobs(blobs.map((b) => b.hash))).toEqual(blobs.map((b) => b.hash));
    expectFails(sql, "EINVAL", () => endpoint.putBlobs([one, { hash: "x" } as unknown as BlobData]));
    endpoint.putBlobs(blobs);
    expect(endpoint.missingBlobs(blobs.map((b) => b.hash))).toEqual([]);
    expect(new TextDecoder().decode(vfs.getBlob(three.hash))).toBe("three");
  });

  vfsTest("malformed batches are refused with EINVAL", (vfs, { sql }) => {
    vfs.writeFile("/src", "x");
    const endpoint = receiver(vfs, sql);
    const ok = changeFrom(vfs, sql, "/src", "/a");
    const bad: SyncChange[][] = [
      [{ ...ok, path: "/a/../b" }],
      [{ ...ok, path: "relative" }],
      [ok, { ...ok }],
      [{ path: "/", rev: 1, base: "" }],
      [{ ...ok, chunks: ["not-a-hash"] }],
      [{ ...ok, path: "/", stat: ok.stat }],
      [{ ...ok, links: ["/a"] }],
      [{ ...ok, links: ["/b", "/b"] }],
      [{ ...ok, links: ["/", "/b"] }],
      [{ ...ok, links: ["b"] }],
      [{ ...ok, links: "/b" as unknown as string[] }],
      [{ path: "/gone", rev: 1, base: "", links: ["/b"] }],
      [{ ...changeFrom(vfs, sql, "/", "/d"), links: ["/b"] }],
    ];
    for (const changes of bad) {
      let error: unknown;
      try {
        endpoint.applyBatch(batch("bad", changes));
      } catch (err) {
        error = err;
      }
      expect(isFsError(error) && error.code, JSON.stringify(changes[0]?.path)).toBe("EINVAL");
    }
    expect(vfs.exists("/a")).toBe(false);
  });

  vfsTest(
    "a change naming links takes the inode of a local name holding its state, never another's",
    (vfs, { sql }) => {
      vfs.writeFile("/src", "shared");
      vfs.writeFile("/elsewhere", "different");
      const endpoint = receiver(vfs, sql);
      const shared = changeFrom(vfs, sql, "/src", "/a");
      const result = endpoint.applyBatch(
        batch("links", [
          { ...shared, path: "/x/b", links: ["/a", "/elsewhere"] },
          { ...shared, links: ["/elsewhere", "/x/b"] },
        ]),
      );
      expect(result.status).toBe("applied");
      expect(vfs.lstat("/x/b")).toMatchObject({ ino: vfs.lstat("/a").ino, nlink: 2 });
      expect(vfs.lstat("/src").nlink).toBe(1);
      expect(vfs.readText("/elsewhere")).toBe("different");
      expect(vfs.lstat("/elsewhere").nlink).toBe(1);
    },
  );

  vfsTest("a new peer id resets what was agreed with the old one", (vfs, { sql }) => {
    vfs.writeFile("/src", "x");
    const endpoint = receiver(vfs, sql);
    endpoint.applyBatch(batch("b", [changeFrom(vfs, sql, "/src", "/a")]));
    expect(baseRows(sql)).toBeGreaterThan(0);
    const reply = endpoint.hello({
      id: "new-peer",
      side: "container",
      received: { peer: null, cursor: "0", lastBatch: null },
    });
    expect(reply.received).toEqual({ peer: "new-peer", cursor: "0", lastBatch: null });
    expect(baseRows(sql)).toBe(0);
  });
});
