/**
 * The change-feed contract over HTTP only (ContractFetch), shared by workerd
 * (worker/test/changes.test.ts: shell, js, API) and the real fleet (test/e2e/changes.test.ts:
 * with the container too): writes from every side arrive live in the order they were made, and
 * resuming from any change's cursor gives exactly what followed it, nothing lost or twice.
 */
import { expect } from "vitest";
import type { ChangeJson } from "../src/computer/changes.ts";
import type { ContractFetch } from "./exec-contract.ts";
import { dataOf, FrameReader } from "./sse.ts";
import { type Side, writeAs } from "./visibility.ts";

/** A change as the feed shows it. */
export type FeedChange = ChangeJson;

/** A JSON page of the feed. */
export interface FeedPage {
  changes: FeedChange[];
  cursor: string;
  more: boolean;
}

/** Opens the live feed of `id` (SSE) with `query` and reads up to its first `synced` event. */
export async function openFeed(
  fetch: ContractFetch,
  id: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<{ reader: FrameReader; initial: FeedChange[]; cursor: string }> {
  const res = await fetch(`/v1/computers/${id}/changes?${query}`, {
    headers: { Accept: "text/event-stream", ...headers },
  });
  expect(res.status, res.status === 200 ? "" : await res.clone().text()).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = new FrameReader(res);
  const frames = await reader.until("synced");
  const initial = frames.filter((f) => f.event === "change").map((f) => dataOf<FeedChange>(f));
  return { reader, initial, cursor: dataOf<{ cursor: string }>(frames.at(-1)).cursor };
}

/** Reads live `change` events until `done` says the collected ones suffice. */
export async function collect(
  reader: FrameReader,
  done: (changes: FeedChange[]) => boolean,
): Promise<FeedChange[]> {
  const changes: FeedChange[] = [];
  while (!done(changes)) {
    const frame = await reader.next();
    if (frame === undefined) throw new Error("the feed ended");
    if (frame.event === "error") throw new Error(`feed error: ${frame.data}`);
    if (frame.event === "change") {
      const change = dataOf<FeedChange>(frame);
      expect(frame.id).toBe(change.cursor);
      changes.push(change);
    }
  }
  return changes;
}

/** Every change of the JSON feed after `after`, following pages of `limit`. */
export async function drainPages(
  fetch: ContractFetch,
  id: string,
  after: string,
  extra = "",
  limit = 1000,
): Promise<FeedChange[]> {
  const all: FeedChange[] = [];
  let cursor = after;
  for (;;) {
    const res = await fetch(
      `/v1/computers/${id}/changes?after=${encodeURIComponent(cursor)}&limit=${limit}${extra}`,
    );
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const page = JSON.parse(text) as FeedPage;
    all.push(...page.changes);
    cursor = page.cursor;
    if (!page.more) return all;
  }
}

/** What a feed read later shows of `changes`: each path once, at its last change, in (rev, path) order. */
export function coalesce(changes: FeedChange[]): string[] {
  const last = new Map<string, FeedChange>();
  for (const change of changes) last.set(change.path, change);
  return [...last.values()]
    .sort((a, b) => a.rev - b.rev || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((c) => `${c.rev} ${c.event} ${c.path}`);
}

/**
 * Each side writes a file of its own under `dir` in turn, then the API deletes the first: the
 * live feed shows every write, in the order made, each with its file's type and size, then the
 * delete; resuming from any change's cursor (JSON pages, also one change at a time, and SSE
 * with Last-Event-ID) gives exactly the changes after it.
 */
export async function checkFeed(
  fetch: ContractFetch,
  id: string,
  sides: readonly Side[],
  dir: string,
): Promise<void> {
  const { reader } = await openFeed(fetch, id, "after=now");
  const files = sides.map((side) => `/${dir}/${side}.txt`);
  for (const side of sides) await writeAs(fetch, id, side, `${dir}/${side}.txt`, `from ${side}`);
  const first = files[0] ?? "";
  const del = await fetch(`/v1/computers/${id}/files${first}`, { method: "DELETE" });
  expect(del.status).toBe(204);
  const live = await collect(reader, (seen) => seen.some((c) => c.path === first && c.event === "deleted"));
  await reader.cancel();
  const revs = live.map((c) => c.rev);
  expect(revs).toEqual([...revs].sort((a, b) => a - b));
  const writes = live.filter((c) => files.includes(c.path) && c.event === "changed");
  expect(writes.map((c) => c.path)).toEqual(files);
  for (const [i, change] of writes.entries()) {
    expect(change.type).toBe("file");
    expect(change.size).toBe(`from ${sides[i]}`.length);
  }
  expect(live.at(-1)).toMatchObject({ path: first, event: "deleted" });
  // Resume from the cursor of every change the stream delivered.
  const filter = `&path=${encodeURIComponent(`/${dir}`)}`;
  for (const [i, change] of live.entries()) {
    const rest = live.slice(i + 1).filter((c) => c.path.startsWith(`/${dir}`));
    expect(coalesce(await drainPages(fetch, id, change.cursor, filter))).toEqual(coalesce(rest));
  }
  const start = live[0]?.cursor ?? "0";
  const whole = await drainPages(fetch, id, start, "", 1000);
  expect(await drainPages(fetch, id, start, "", 1)).toEqual(whole);
  const middle = live[Math.floor(live.length / 2)];
  if (middle !== undefined) {
    const resumed = await openFeed(fetch, id, "after=0", { "Last-Event-ID": middle.cursor });
    await resumed.reader.cancel();
    expect(coalesce(resumed.initial)).toEqual(coalesce(live.slice(live.indexOf(middle) + 1)));
  }
}
