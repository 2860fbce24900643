/**
 * GET /v1/computers/:id/changes inside workerd: the feed contract (change-feed.ts) for shell,
 * js and the API; the JSON page's shape and path filter; bad cursors; and a cursor older than
 * the retention (pruned by the vfs's own GC) is 410 ESTALE with the current cursor.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { createHash } from "node:crypto";
import { durableObjectSql, openVfs } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { checkFeed, type FeedPage, openFeed } from "./change-feed.ts";
import { api, createComputer, mintToken, writeFile } from "./helpers.ts";

async function page(id: string, query: string, token?: string): Promise<Response> {
  return api(`/v1/computers/${id}/changes?${query}`, token === undefined ? {} : { token });
}

/** Prunes every deletion recorded so far, as the hourly GC does once its window has passed. */
async function pruneDeletions(id: string): Promise<void> {
  await runInDurableObject(env.COMPUTER.getByName(id), async (_, state) => {
    const vfs = openVfs(durableObjectSql(state.storage), {
      sha256: (data) => createHash("sha256").update(data).digest("hex"),
    });
    vfs.gc({ windowMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(vfs.gc({ windowMs: 0 }).changesPruned).toBeGreaterThan(0);
  });
}

describe("change feed", () => {
  it("shows writes of shell, js and the API live, in order, and resumes exactly", async () => {
    const id = await createComputer();
    await checkFeed(api, id, ["api", "shell", "js"], "feed");
  });

  it("pages from 0 give the whole tree with each path's type, size and mode; path filters", async () => {
    const id = await createComputer();
    await writeFile(id, "a/b.txt", "hello");
    await writeFile(id, "c.txt", "x");
    const res = await page(id, "after=0");
    expect(res.status).toBe(200);
    const all = (await res.json()) as FeedPage;
    expect(all.more).toBe(false);
    expect(all.changes.map((c) => c.path).sort()).toEqual(["/", "/a", "/a/b.txt", "/c.txt"]);
    expect(all.changes.find((c) => c.path === "/a/b.txt")).toMatchObject({
      event: "changed",
      type: "file",
      size: 5,
      mode: "0644",
    });
    expect(all.cursor).toBe(all.changes.at(-1)?.cursor);
    const filtered = (await (await page(id, "after=0&path=a")).json()) as FeedPage;
    expect(filtered.changes.map((c) => c.path)).toEqual(["/a", "/a/b.txt"]);
    const now = (await (await page(id, "after=now")).json()) as FeedPage;
    expect(now.changes).toEqual([]);
    await writeFile(id, "d.txt", "d");
    const after = (await (await page(id, `after=${now.cursor}`)).json()) as FeedPage;
    expect(after.changes.map((c) => c.path)).toEqual(["/", "/d.txt"]);
  });

  it("a read-only token may read the feed; a malformed cursor or path is 400 EINVAL", async () => {
    const id = await createComputer();
    const ro = await mintToken(id, "ro");
    expect((await page(id, "after=0", ro)).status).toBe(200);
    for (const bad of ["after=x:y:z", "after=-3", "after=1/x:", "path=../x", "limit=0"]) {
      const res = await page(id, bad);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("EINVAL");
    }
  });

  it("a cursor older than pruned deletions is 410 ESTALE with the current cursor, JSON and SSE", async () => {
    const id = await createComputer();
    await writeFile(id, "keep.txt", "k");
    const old = ((await (await page(id, "after=now")).json()) as FeedPage).cursor;
    await writeFile(id, "gone.txt", "g");
    expect((await api(`/v1/computers/${id}/files/gone.txt`, { method: "DELETE" })).status).toBe(204);
    await pruneDeletions(id);
    const current = ((await (await page(id, "after=now")).json()) as FeedPage).cursor;
    for (const accept of ["application/json", "text/event-stream"]) {
      const res = await api(`/v1/computers/${id}/changes?after=${old}`, { headers: { Accept: accept } });
      expect(res.status, accept).toBe(410);
      const body = (await res.json()) as { error: { code: string; cursor: string; message: string } };
      expect(body.error.code).toBe("ESTALE");
      expect(body.error.cursor).toBe(current);
    }
    // Starting over from 0 works, and from its cursor the feed goes on.
    const fresh = await openFeed(api, id, "after=0");
    expect(fresh.initial.map((c) => c.path).sort()).toEqual(["/", "/keep.txt"]);
    await fresh.reader.cancel();
    expect((await page(id, `after=${fresh.cursor}`)).status).toBe(200);
  });

  it("a stream stays open and pushes a change made after it caught up", async () => {
    const id = await createComputer();
    const feed = await openFeed(api, id, "after=0");
    expect(feed.initial.map((c) => c.path)).toEqual(["/"]);
    await writeFile(id, "late.txt", "late");
    const frames = await feed.reader.until("synced");
    await feed.reader.cancel();
    expect(frames.filter((f) => f.event === "change").map((f) => JSON.parse(f.data).path)).toEqual([
      "/",
      "/late.txt",
    ]);
  });
});
