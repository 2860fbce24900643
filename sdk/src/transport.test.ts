/**
 * The transport against a scripted fetch: URLs from the route table, the bearer token, error
 * answers as ComputerError, bounded retries of idempotent calls on 503 + Retry-After, abort.
 */
import { describe, expect, it } from "vitest";
import { ComputerClient } from "./client.ts";
import { encodeFilePath } from "./contract/routes.ts";
import { ComputerError } from "./error.ts";

type Seen = { method: string; url: string; auth: string | null; body: string | null };

/** A fetch that answers from `answers` in turn and records each request. */
function scripted(answers: (() => Response)[]): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({
      method: request.method,
      url: request.url,
      auth: request.headers.get("authorization"),
      body: request.method === "GET" || request.method === "HEAD" ? null : await request.text(),
    });
    const answer = answers[seen.length - 1];
    if (answer === undefined) throw new Error("no more answers");
    return answer();
  };
  return { fetch: fetchImpl as typeof fetch, seen };
}

const unavailable = (retryAfter: string) => () =>
  Response.json(
    { error: { code: "EUNAVAILABLE", message: "busy" } },
    { status: 503, headers: { "Retry-After": retryAfter } },
  );

describe("transport", () => {
  it("builds URLs from the route table, encoding each path segment", async () => {
    const { fetch, seen } = scripted([
      () => Response.json({ path: "/a b/c", size: 1, mtime: "", mode: "0644" }),
    ]);
    const client = new ComputerClient({ url: "http://api.test/", token: "t0k", fetch });
    await client.computer("demo").files.write("/a b/c?#", "x", { mode: 0o644 });
    expect(seen[0]).toEqual({
      method: "PUT",
      url: "http://api.test/v1/computers/demo/files/a%20b/c%3F%23?mode=0644",
      auth: "Bearer t0k",
      body: "x",
    });
  });

  it("turns an error answer into a ComputerError with code, status and path", async () => {
    const { fetch } = scripted([
      () =>
        Response.json({ error: { code: "ENOENT", message: "no such file", path: "/x" } }, { status: 404 }),
    ]);
    const client = new ComputerClient({ url: "http://api.test", fetch });
    const err = await client
      .computer("demo")
      .files.readText("x")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ComputerError);
    expect(err).toMatchObject({ code: "ENOENT", status: 404, path: "/x", message: "no such file" });
  });

  it("answers a proxy's non-JSON error as EPROTO with the status", async () => {
    const { fetch } = scripted([() => new Response("<html>bad gateway</html>", { status: 502 })]);
    const client = new ComputerClient({ url: "http://api.test", fetch });
    await expect(client.computers.get("demo")).rejects.toMatchObject({ code: "EPROTO", status: 502 });
  });

  it("retries an idempotent call on 503 with Retry-After, then answers", async () => {
    const { fetch, seen } = scripted([
      unavailable("0"),
      unavailable("0"),
      () => Response.json({ id: "demo" }),
    ]);
    const client = new ComputerClient({ url: "http://api.test", fetch });
    expect(await client.computers.get("demo")).toEqual({ id: "demo" });
    expect(seen).toHaveLength(3);
  });

  it("gives up after the bounded number of retries", async () => {
    const { fetch, seen } = scripted([unavailable("0"), unavailable("0"), unavailable("0")]);
    const client = new ComputerClient({ url: "http://api.test", fetch, retries: 2 });
    await expect(client.computers.get("demo")).rejects.toMatchObject({
      code: "EUNAVAILABLE",
      status: 503,
      retryAfter: 0,
    });
    expect(seen).toHaveLength(3);
  });

  it("never retries a call that is not idempotent (exec), nor a 503 without Retry-After", async () => {
    const exec = scripted([unavailable("0")]);
    const client = new ComputerClient({ url: "http://api.test", fetch: exec.fetch });
    await expect(
      client.computer("d").exec.run({ runtime: "container", source: "true" }),
    ).rejects.toMatchObject({
      code: "EUNAVAILABLE",
    });
    expect(exec.seen).toHaveLength(1);
    const bare = scripted([
      () => Response.json({ error: { code: "EUNAVAILABLE", message: "x" } }, { status: 503 }),
    ]);
    await expect(
      new ComputerClient({ url: "http://api.test", fetch: bare.fetch }).computers.get("d"),
    ).rejects.toMatchObject({
      code: "EUNAVAILABLE",
    });
    expect(bare.seen).toHaveLength(1);
  });

  it("retries read-only fs ops but not writing ones", async () => {
    const reads = scripted([unavailable("0"), () => Response.json({ path: "/a", type: "file" })]);
    await new ComputerClient({ url: "http://api.test", fetch: reads.fetch }).computer("d").files.stat("a");
    expect(reads.seen).toHaveLength(2);
    const writes = scripted([unavailable("0")]);
    const files = new ComputerClient({ url: "http://api.test", fetch: writes.fetch }).computer("d").files;
    await expect(files.mkdir("a")).rejects.toMatchObject({ code: "EUNAVAILABLE" });
    expect(writes.seen).toHaveLength(1);
  });

  it("does not wait for a Retry-After longer than maxRetryDelayMs", async () => {
    const { fetch, seen } = scripted([unavailable("120")]);
    const client = new ComputerClient({ url: "http://api.test", fetch, maxRetryDelayMs: 1000 });
    await expect(client.computers.get("demo")).rejects.toMatchObject({ retryAfter: 120 });
    expect(seen).toHaveLength(1);
  });

  it("stops waiting between retries when the signal aborts", async () => {
    const { fetch } = scripted([unavailable("10")]);
    const client = new ComputerClient({ url: "http://api.test", fetch });
    const controller = new AbortController();
    const pending = client.computers.get("demo", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: "EABORTED", status: 0 });
  });

  it("reports an unreachable server as ECONNREFUSED with status 0", async () => {
    const fetchImpl = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch;
    const client = new ComputerClient({ url: "http://api.test", fetch: fetchImpl });
    await expect(client.computers.get("demo")).rejects.toMatchObject({ code: "ECONNREFUSED", status: 0 });
  });

  it("maps a HEAD answer's status to its code (HEAD has no body)", async () => {
    const { fetch } = scripted([() => new Response(null, { status: 404 })]);
    const client = new ComputerClient({ url: "http://api.test", fetch });
    await expect(client.computer("d").files.head("x")).rejects.toMatchObject({ code: "ENOENT", status: 404 });
  });
});

describe("file paths in URLs", () => {
  it("refuses '.' and '..' segments before sending (URL parsing would resolve them away)", async () => {
    const { fetch, seen } = scripted([]);
    const files = new ComputerClient({ url: "http://api.test", fetch }).computer("d").files;
    for (const path of ["a/../b", "./a", "a/.", ".."]) {
      await expect(files.write(path, "x")).rejects.toMatchObject({ code: "EINVAL", status: 400, path });
    }
    expect(seen).toEqual([]);
    expect(encodeFilePath("/a b/..c/%")).toBe("a%20b/..c/%25");
  });
});
