/**
 * The SDK's contract suite against the real local fleet: every route of the contract's table is
 * called through @computer/sdk and every error code a request can provoke comes back as a
 * ComputerError with its code, status and path. The last tests check the coverage itself.
 */
import { createHash } from "node:crypto";
import { type Fleet, freePort, startFleet } from "@computer/fleet";
import { type Computer, ComputerClient, type ComputerError, type ExecEvent } from "@computer/sdk";
import { API_ERROR_CODES, ROUTE_NAMES } from "@computer/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordingFetch, recordingFetch } from "./route-coverage.ts";
import { expectCode, failure, UNREACHABLE } from "./sdk-expect.ts";

let fleet: Fleet;
let rec: RecordingFetch;
let client: ComputerClient;
let n = 0;

/** A fresh computer with a unique id. */
async function fresh(settings: { quotaBytes?: number } = {}): Promise<Computer> {
  const id = `sdk-${process.pid}-${n++}`;
  await client.computers.create(id, settings);
  return client.computer(id);
}

beforeAll(async () => {
  fleet = await startFleet();
  rec = recordingFetch();
  client = new ComputerClient({ url: fleet.url, token: fleet.adminToken, fetch: rec.fetch });
});

afterAll(async () => {
  await fleet?.stop();
});

describe("service", () => {
  it("answers health and its OpenAPI document", async () => {
    expect(await client.healthy()).toBe(true);
    const head = await rec.fetch(`${fleet.url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await client.openapi()).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
  });

  it("a wrong method is ENOTSUP, an unknown route ENOENT (as the API's JSON)", async () => {
    const res = await rec.fetch(`${fleet.url}/v1/computers/x/files/a`, {
      method: "POST",
      headers: { Authorization: `Bearer ${fleet.adminToken}` },
    });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: { code: "ENOTSUP" } });
  });

  it("an unreachable server is ECONNREFUSED; an aborted call EABORTED", async () => {
    const closed = new ComputerClient({ url: `http://127.0.0.1:${await freePort()}`, token: "x" });
    expect(await failure(closed.computers.get("a"))).toMatchObject({ code: "ECONNREFUSED", status: 0 });
    const err = await failure(client.computers.get("a", { signal: AbortSignal.abort() }));
    expect(err.code).toBe("EABORTED");
  });
});

describe("computers", () => {
  it("creates (then finds it exists), gets, updates, lists with paging and deletes", async () => {
    const id = `sdk-life-${process.pid}`;
    const created = await client.computers.create(id, { quotaBytes: 1 << 20, egress: "none" });
    expect(created).toMatchObject({ id, created: true, quotaBytes: 1 << 20, usedBytes: expect.any(Number) });
    expect((await client.computers.create(id)).created).toBe(false);
    expect(await client.computers.get(id)).toMatchObject({ id, egress: "none" });
    expect(await client.computer(id).update({ egress: { allow: ["example.com"] } })).toMatchObject({
      egress: { allow: ["example.com"] },
    });
    await client.computers.create(`${id}-b`);
    await client.computers.create(`${id}-c`);
    const first = await client.computers.list({ limit: 2 });
    expect(first.computers).toHaveLength(2);
    expect(first.next).toEqual(expect.any(String));
    const ids: string[] = [];
    for await (const c of client.computers.all({ pageSize: 2 })) ids.push(c.id);
    expect(ids).toEqual(expect.arrayContaining([id, `${id}-b`, `${id}-c`]));
    expect(ids).toEqual([...ids].sort());
    await client.computer(id).delete();
    await client.computers.delete(`${id}-b`);
    await expectCode(client.computers.get(id), "ENOENT");
  });

  it("a bad id is EINVAL and nothing is created", async () => {
    await expectCode(client.computers.create("Bad_Id"), "EINVAL");
  });
});

describe("files", () => {
  let c: Computer;
  beforeAll(async () => {
    c = await fresh();
  });

  it("writes text, bytes and a stream; reads bytes, text, a stream and a Range", async () => {
    expect(await c.files.write("notes/a.txt", "hello, computer")).toMatchObject({
      path: "/notes/a.txt",
      size: 15,
    });
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    await c.files.write("bin/b.dat", bytes, { mode: 0o600 });
    expect(await c.files.read("bin/b.dat")).toEqual(bytes);
    const chunks = [new TextEncoder().encode("str"), new TextEncoder().encode("eam")];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    expect((await c.files.write("s.txt", stream)).size).toBe(6);
    expect(await c.files.readText("s.txt")).toBe("stream");
    expect(await new Response(await c.files.stream("notes/a.txt")).text()).toBe("hello, computer");
    expect(await c.files.readText("notes/a.txt", { range: { offset: 7, length: 3 } })).toBe("com");
    const tail = await c.files.open("notes/a.txt", { range: { offset: 10 } });
    expect({ size: tail.size, total: tail.totalSize }).toEqual({ size: 5, total: 15 });
    await tail.body.cancel();
    await expectCode(c.files.read("notes/a.txt", { range: { offset: 100 } }), "ERANGE");
    await expectCode(c.files.readText("notes"), "EISDIR");
    await expectCode(c.files.readText("notes/missing.txt"), "ENOENT", "/notes/missing.txt");
  });

  it("stats with every attribute, as HEAD and as the stat op", async () => {
    const head = await c.files.head("bin/b.dat");
    expect(head).toMatchObject({ type: "file", size: 70_000, mode: "0600" });
    const stat = await c.files.stat("bin/b.dat");
    expect(stat).toMatchObject({ path: "/bin/b.dat", type: "file", size: 70_000, mode: "0600", nlink: 1 });
    for (const key of ["ino", "uid", "gid", "rdev", "rdevMajor", "rdevMinor", "allocated"]) {
      expect(stat, key).toHaveProperty(key, expect.any(Number));
    }
    expect(stat.timespec.mtime).toEqual({ sec: expect.any(Number), nsec: expect.any(Number) });
    expect(await c.files.exists("bin/b.dat")).toBe(true);
    expect(await c.files.exists("bin/none")).toBe(false);
    await expectCode(c.files.head("bin/none"), "ENOENT");
  });

  it("lists a directory page by page and in full", async () => {
    await c.files.mkdir("many");
    for (const name of ["d", "a", "c", "b", "e"]) await c.files.write(`many/${name}`, name);
    const page = await c.files.list("many", { limit: 2 });
    expect(page.entries.map((e) => e.name)).toEqual(["a", "b"]);
    expect(page.next).toBe("b");
    const next = await c.files.list("many", { limit: 2, after: page.next });
    expect(next.entries.map((e) => e.name)).toEqual(["c", "d"]);
    const names: string[] = [];
    for await (const entry of c.files.entries("many", { pageSize: 2 })) names.push(entry.name);
    expect(names).toEqual(["a", "b", "c", "d", "e"]);
    expect((await c.files.op({ op: "readdir", path: "many", limit: 1 })).entries).toHaveLength(1);
    await expectCode(c.files.list("notes/a.txt"), "ENOTDIR");
  });

  it("mkdir -p, rename, exchange, symlink, link, chmod, chown, utimes, truncate", async () => {
    expect(await c.files.mkdir("deep/er/est", { recursive: true })).toMatchObject({ type: "dir" });
    await c.files.mkdir("deep/er/est", { recursive: true });
    await expectCode(c.files.mkdir("deep"), "EEXIST");
    await expectCode(c.files.mkdir("notes/a.txt/x"), "ENOTDIR");
    await c.files.write("x.txt", "x");
    await c.files.write("y.txt", "yy");
    expect(await c.files.rename("x.txt", "z.txt")).toMatchObject({ from: "/x.txt", path: "/z.txt", size: 1 });
    await c.files.rename("z.txt", "y.txt", { exchange: true });
    expect(await c.files.readText("y.txt")).toBe("x");
    expect(await c.files.readText("z.txt")).toBe("yy");
    await expectCode(c.files.rename("z.txt", "nope.txt", { exchange: true }), "ENOENT");
    expect(await c.files.symlink("y.txt", "link")).toMatchObject({ type: "symlink", target: "y.txt" });
    expect(await c.files.readlink("link")).toBe("y.txt");
    expect(await c.files.realpath("link")).toBe("/y.txt");
    expect(await c.files.stat("link", { follow: false })).toMatchObject({ type: "symlink", target: "y.txt" });
    expect((await c.files.link("y.txt", "hard")).nlink).toBe(2);
    expect((await c.files.chmod("y.txt", 0o4755)).mode).toBe("4755");
    expect(await c.files.chown("y.txt", 1000, 1000)).toMatchObject({ uid: 1000, gid: 1000 });
    const set = await c.files.utimes("y.txt", { mtime: { sec: 1234567890, nsec: 123456789 }, atime: "omit" });
    expect(set.timespec.mtime).toEqual({ sec: 1234567890, nsec: 123456789 });
    expect((await c.files.truncate("y.txt", 4096)).size).toBe(4096);
  });

  it("extended attributes: set, get, list, remove, and their errors", async () => {
    await c.files.setXattr("y.txt", "user.mime", "text/plain");
    await c.files.setXattr("y.txt", "user.raw", new Uint8Array([0, 255, 1]));
    expect(new TextDecoder().decode(await c.files.getXattr("y.txt", "user.mime"))).toBe("text/plain");
    expect(await c.files.getXattr("y.txt", "user.raw")).toEqual(new Uint8Array([0, 255, 1]));
    expect(await c.files.listXattrs("y.txt")).toEqual(["user.mime", "user.raw"]);
    await expectCode(c.files.setXattr("y.txt", "user.mime", "x", { flag: "create" }), "EEXIST");
    await c.files.removeXattr("y.txt", "user.mime");
    await expectCode(c.files.getXattr("y.txt", "user.mime"), "ENODATA");
    await expectCode(c.files.setXattr("y.txt", "trusted.x", "x"), "EINVAL");
  });

  it("find, grep and du run on the computer", async () => {
    await c.files.write("src/a.ts", "export const a = 1;\n// TODO one\n");
    await c.files.write("src/lib/b.ts", "const b = 2; // todo two\n");
    expect(await c.files.find("src", "**/*.ts")).toEqual(["/src/a.ts", "/src/lib/b.ts"]);
    const matches = await c.files.grep("src", "todo", { ignoreCase: true });
    expect(matches.map((m) => [m.path, m.line])).toEqual([
      ["/src/a.ts", 2],
      ["/src/lib/b.ts", 1],
    ]);
    expect(await c.files.grep("src", "b = \\d", { regex: true })).toHaveLength(1);
    await expectCode(c.files.grep("src", "(", { regex: true }), "EINVAL");
    expect(await c.files.du("src")).toMatchObject({ files: 2, dirs: 2 });
  });

  it("removes files, empty dirs and trees; the path errors", async () => {
    await expectCode(c.files.remove("deep"), "ENOTEMPTY");
    await c.files.remove("deep", { recursive: true });
    expect(await c.files.exists("deep")).toBe(false);
    await c.files.remove("hard");
    await expectCode(c.files.remove("hard"), "ENOENT");
    await expectCode(c.files.write("a/../b", "x"), "EINVAL");
    await expectCode(c.files.write(`${"n".repeat(256)}`, "x"), "ENAMETOOLONG");
    await c.files.symlink("loop2", "loop1");
    await c.files.symlink("loop1", "loop2");
    await expectCode(c.files.stat("loop1"), "ELOOP");
    await expectCode(c.files.link("src", "src-link"), "EPERM");
    await expectCode(c.files.rename("/", "elsewhere"), "EBUSY");
    await expectCode(c.files.rename("z.txt", "src"), "EISDIR");
  });

  it("a conditional write (If-Match) of a file changed since is ESTALE and changes nothing", async () => {
    await c.files.write("cond.txt", "one");
    const read = (await c.files.head("cond.txt")).etag;
    expect(read).toBeDefined();
    await c.files.write("cond.txt", "two");
    await expectCode(c.files.write("cond.txt", "three", { ifMatch: read }), "ESTALE", "/cond.txt");
    expect(await c.files.readText("cond.txt")).toBe("two");
    const current = (await c.files.head("cond.txt")).etag;
    expect(await c.files.write("cond.txt", "three", { ifMatch: current })).toMatchObject({ size: 5 });
  });

  it("a write past the quota is ENOSPC and leaves nothing", async () => {
    const small = await fresh({ quotaBytes: 64 * 1024 });
    await expectCode(small.files.write("big.bin", new Uint8Array(128 * 1024)), "ENOSPC");
    expect(await small.files.exists("big.bin")).toBe(false);
  });
});

describe("exec", () => {
  let c: Computer;
  beforeAll(async () => {
    c = await fresh();
  });

  it("runs buffered: a non-zero exit is a result", async () => {
    const ok = await c.exec.run({ runtime: "shell", source: "echo hi; echo err >&2" });
    expect(ok).toMatchObject({ status: "completed", exitCode: 0, stdout: "hi\n", stderr: "err\n" });
    const failed = await c.exec.run({ runtime: "shell", source: "exit 3" });
    expect(failed).toMatchObject({ status: "failed", exitCode: 3 });
    const js = await c.exec.run({
      runtime: "js",
      source: "export default (input) => input.n * 2",
      input: { n: 21 },
    });
    expect(js).toMatchObject({ status: "completed", value: 42 });
  });

  it("streams stdout/stderr/exit events in order, then re-attaches from a seq", async () => {
    const stream = await c.exec.stream({ runtime: "shell", source: "echo a; echo b >&2; echo c" });
    expect(stream.id).toMatch(/^ex_/);
    const events: ExecEvent[] = [];
    for await (const event of stream) events.push(event);
    const output = events.flatMap((e) => (e.type === "exit" ? [] : [`${e.type}:${e.data}`]));
    expect(output.join("")).toBe("stdout:a\nstderr:b\nstdout:c\n");
    expect(events.at(-1)).toMatchObject({ type: "exit", result: { status: "completed", exitCode: 0 } });
    const seqs = events.flatMap((e) => (e.type === "exit" ? [] : [e.seq]));
    const again = await c.exec.attach(stream.id, { after: seqs[0] });
    const replay: string[] = [];
    const result = await again.result((e) => replay.push(e.data));
    expect(replay.join("")).toBe("b\nc\n");
    expect(result.id).toBe(stream.id);
    expect(await c.exec.get(stream.id)).toMatchObject({ id: stream.id, stdout: "a\nc\n" });
  });

  it("starts detached, lists, kills a running exec and re-attaches to see it end", async () => {
    const id = await c.exec.start({ runtime: "shell", source: "echo started; sleep 30; echo never" });
    const deadline = Date.now() + 20_000;
    while ((await c.exec.get(id)).stdout === "" && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect((await c.exec.list({ limit: 5 })).map((e) => e.id)).toContain(id);
    const killed = await c.exec.kill(id);
    expect(killed).toMatchObject({ id, status: "killed" });
    expect((await c.exec.kill(id)).status).toBe("killed");
    expect(await (await c.exec.attach(id)).result()).toMatchObject({ status: "killed", stdout: "started\n" });
    await expectCode(c.exec.get("ex_000000000000000000000000"), "ENOENT");
  });

  it("an unconfigured runtime is EUNAVAILABLE (503), a bad request EINVAL", async () => {
    await expectCode(c.exec.run({ runtime: "container", source: "true" }), "EUNAVAILABLE");
    await expectCode(c.exec.run({ runtime: "cobol" as "shell", source: "x" }), "EINVAL");
  });
});

describe("change feed", () => {
  it("pages the changes after a cursor, filtered by path", async () => {
    const c = await fresh();
    const start = (await c.changes({ after: "now" })).cursor;
    await c.files.write("feed/a.txt", "a");
    await c.files.write("other.txt", "o");
    const page = await c.changes({ after: start, path: "feed" });
    expect(page.changes.map((ch) => [ch.path, ch.event])).toEqual([
      ["/feed", "changed"],
      ["/feed/a.txt", "changed"],
    ]);
    await expectCode(c.changes({ after: "not-a-cursor" }), "EINVAL");
  });
});

describe("change feed, live", () => {
  it("watch() delivers changes live from a cursor, changes() pages them, a bad cursor is EINVAL", async () => {
    const c = await fresh();
    const abort = new AbortController();
    const synced: string[] = [];
    const seen: string[] = [];
    const watching = (async () => {
      for await (const change of c.watch({
        after: "0",
        path: "w",
        signal: abort.signal,
        onSynced: (cur) => synced.push(cur),
      })) {
        seen.push(`${change.event} ${change.path}`);
        if (change.event === "deleted") abort.abort();
      }
    })();
    await c.files.write("w/a.txt", "a");
    await c.files.remove("w/a.txt");
    await watching;
    expect(seen).toEqual(expect.arrayContaining(["changed /w/a.txt", "deleted /w/a.txt"]));
    expect(synced.length).toBeGreaterThan(0);
    const page = await c.changes({ after: "0", path: "w" });
    expect(page.changes.map((ch) => `${ch.event} ${ch.path}`)).toEqual(["changed /w", "deleted /w/a.txt"]);
    await expectCode(c.changes({ after: "x:y:z" }), "EINVAL");
  });
});

describe("terminals", () => {
  it("opens a shell terminal, lists, describes and ends it", async () => {
    const c = await fresh();
    const opened = await c.terminals.open({ runtime: "shell", cols: 80, rows: 24 });
    expect(opened).toMatchObject({ id: expect.stringMatching(/^tm_/), runtime: "shell", status: "running" });
    expect((await c.terminals.list()).map((t) => t.id)).toContain(opened.id);
    expect(await c.terminals.get(opened.id)).toMatchObject({ id: opened.id, cols: 80, rows: 24 });
    expect(c.terminals.attachUrl(opened.id)).toBe(
      `${fleet.url.replace("http", "ws")}/v1/computers/${c.id}/terminals/${opened.id}`,
    );
    expect((await c.terminals.end(opened.id)).status).toBe("exited");
    await expectCode(c.terminals.get(`tm_${"0".repeat(24)}`), "ENOENT");
  });
});

describe("previews", () => {
  it("opens (the same URL twice), lists and closes a preview; its URL needs a container runtime", async () => {
    const c = await fresh();
    const preview = await c.previews.open({ port: 3000 });
    expect(preview).toMatchObject({ port: 3000, access: "public" });
    expect(preview.url.startsWith(`${fleet.url}/p/${c.id}/3000/`)).toBe(true);
    expect((await c.previews.open({ port: 3000 })).url).toBe(preview.url);
    await expectCode(c.previews.open({ port: 3000, access: "token" }), "EEXIST");
    expect((await c.previews.list()).map((p) => p.port)).toEqual([3000]);
    const res = await rec.fetch(preview.url);
    expect(res.status).toBe(503);
    await res.body?.cancel();
    await c.previews.close(3000);
    await expectCode(c.previews.close(3000), "ENOENT");
    await expectCode(c.previews.open({ port: 0 }), "EINVAL");
    expect((await rec.fetch(preview.url)).status).toBe(404);
  });
});

describe("mcp", () => {
  it("answers MCP's initialize over POST; GET and DELETE are ENOTSUP (stateless)", async () => {
    const c = await fresh();
    const url = `${fleet.url}/v1/computers/${c.id}/mcp`;
    const headers = { Authorization: `Bearer ${fleet.adminToken}` };
    const init = await rec.fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "sdk-contract", version: "1" },
        },
      }),
    });
    expect(await init.json()).toMatchObject({ id: 1, result: { serverInfo: { name: "computer" } } });
    for (const method of ["GET", "DELETE"]) {
      const res = await rec.fetch(url, { method, headers });
      expect(res.status, method).toBe(405);
      expect(await res.json()).toMatchObject({ error: { code: "ENOTSUP" } });
    }
  });
});

describe("checkpoints, fork, artifacts", () => {
  it("creates, lists and restores checkpoints", async () => {
    const c = await fresh();
    await c.files.write("f.txt", "one");
    expect(await c.checkpoints.create("v1")).toMatchObject({ name: "v1", rev: expect.any(Number) });
    await expectCode(c.checkpoints.create("v1"), "EEXIST");
    await c.files.write("f.txt", "two");
    expect((await c.checkpoints.list()).map((k) => k.name)).toEqual(["v1"]);
    expect(await c.checkpoints.restore("v1")).toMatchObject({ name: "v1" });
    expect(await c.files.readText("f.txt")).toBe("one");
    await expectCode(c.checkpoints.restore("nope"), "ENOENT");
  });

  it("forks a computer, now and at a checkpoint", async () => {
    const c = await fresh();
    await c.files.write("f.txt", "before");
    await c.checkpoints.create("base");
    await c.files.write("f.txt", "after");
    const now = await c.fork(`${c.id}-now`);
    expect(await now.files.readText("f.txt")).toBe("after");
    const then = await c.fork(`${c.id}-then`, { checkpoint: "base" });
    expect(await then.files.readText("f.txt")).toBe("before");
    await expectCode(c.fork(`${c.id}-now`), "EEXIST");
  });

  it("publishes a file: the link works without a token; listed and described", async () => {
    const c = await fresh();
    await c.files.write("site/index.html", "<h1>hi</h1>");
    const published = await c.publish({ path: "site", name: `site-${c.id}` });
    expect(published).toMatchObject({ name: `site-${c.id}`, version: "1", type: "dir" });
    const page = await rec.fetch(published.url);
    expect(await page.text()).toBe("<h1>hi</h1>");
    expect((await rec.fetch(published.url, { method: "HEAD" })).status).toBe(200);
    const names: string[] = [];
    for await (const a of client.artifacts.all()) names.push(a.name);
    expect(names).toContain(published.name);
    expect((await client.artifacts.list({ limit: 1 })).artifacts).toHaveLength(1);
    const detail = await client.artifacts.get(published.name, { ttlSeconds: 60 });
    expect(detail.versions).toEqual([expect.objectContaining({ version: "1", url: expect.any(String) })]);
    const sha = createHash("sha256").update("<h1>hi</h1>").digest("hex");
    expect(published.files).toEqual([{ path: "index.html", size: 11, sha256: sha }]);
    await expectCode(c.publish({ path: "site", name: published.name, version: "1" }), "EEXIST");
  });
});

describe("tokens", () => {
  it("an ro token reads but cannot write; a token of another computer is refused", async () => {
    const c = await fresh();
    const other = await fresh();
    await c.files.write("r.txt", "read me");
    const { token, expiresAt } = await c.tokens.create({ scope: "ro", ttlSeconds: 600 });
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const ro = new ComputerClient({ url: fleet.url, token, fetch: rec.fetch });
    expect(await ro.computer(c.id).files.readText("r.txt")).toBe("read me");
    await expectCode(ro.computer(c.id).files.write("r.txt", "changed"), "EFORBIDDEN");
    await expectCode(ro.computer(c.id).exec.run({ runtime: "shell", source: "true" }), "EFORBIDDEN");
    await expectCode(ro.computer(other.id).files.readText("r.txt"), "EFORBIDDEN");
    await expectCode(ro.computers.list(), "EFORBIDDEN");
    expect(await c.files.readText("r.txt")).toBe("read me");
  });

  it("a revoked, a wrong and an expired token are EUNAUTHORIZED", async () => {
    const c = await fresh();
    const { token } = await c.tokens.create({ scope: "rw" });
    const rw = new ComputerClient({ url: fleet.url, token, fetch: rec.fetch }).computer(c.id);
    await rw.files.write("w.txt", "ok");
    await c.tokens.revoke();
    await expectCode(rw.files.readText("w.txt"), "EUNAUTHORIZED");
    const wrong = new ComputerClient({ url: fleet.url, token: "nope", fetch: rec.fetch });
    await expectCode(wrong.computer(c.id).info(), "EUNAUTHORIZED");
    const short = await c.tokens.create({ scope: "rw", ttlSeconds: 1 });
    const soon = new ComputerClient({ url: fleet.url, token: short.token, fetch: rec.fetch }).computer(c.id);
    const deadline = Date.now() + 10_000;
    let last: ComputerError | undefined;
    while (Date.now() < deadline) {
      last = await soon.info().then(
        () => undefined,
        (e: ComputerError) => e,
      );
      if (last !== undefined) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last?.code).toBe("EUNAUTHORIZED");
  });
});

describe("coverage", () => {
  it("called every route of the contract's table", () => {
    expect(ROUTE_NAMES.filter((r) => !rec.routes.has(r))).toEqual([]);
  });

  it("met every error code a request can provoke", () => {
    const reachable = API_ERROR_CODES.filter((code) => !Object.hasOwn(UNREACHABLE, code));
    expect(reachable.filter((code) => !rec.codes.has(code))).toEqual([]);
  });
});
