/**
 * `AbortSignal` on every call: each method of the client hands its `signal` to the fetch it
 * makes, so an aborted signal is EABORTED and nothing is answered. A fetch that honours the
 * signal like the platform's stands in for the network: a method that dropped its signal would
 * get an answer and resolve.
 */
import { describe, expect, it } from "vitest";
import { ComputerClient } from "./client.ts";
import type { Computer } from "./computer.ts";

/** A fetch that rejects like the platform's when its signal is aborted, else answers `{}`. */
function signalFetch(): { fetch: typeof fetch; answered: string[] } {
  const answered: string[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.signal.aborted) throw new DOMException("This operation was aborted", "AbortError");
    answered.push(`${request.method} ${new URL(request.url).pathname}`);
    return Response.json({});
  };
  return { fetch: fetchImpl as typeof fetch, answered };
}

type Call = (client: ComputerClient, c: Computer, s: { signal: AbortSignal }) => Promise<unknown>;

/** Every method that makes a request, called with the signal. */
const CALLS: Record<string, Call> = {
  "computers.create": (k, _c, s) => k.computers.create("a", {}, s),
  "computers.get": (k, _c, s) => k.computers.get("a", s),
  "computers.list": (k, _c, s) => k.computers.list(s),
  "computers.delete": (k, _c, s) => k.computers.delete("a", s),
  "artifacts.list": (k, _c, s) => k.artifacts.list(s),
  "artifacts.get": (k, _c, s) => k.artifacts.get("a", s),
  healthy: (k, _c, s) => k.healthy(s),
  openapi: (k, _c, s) => k.openapi(s),
  info: (_k, c, s) => c.info(s),
  update: (_k, c, s) => c.update({ quotaBytes: 1 }, s),
  delete: (_k, c, s) => c.delete(s),
  fork: (_k, c, s) => c.fork("b", s),
  changes: (_k, c, s) => c.changes(s),
  publish: (_k, c, s) => c.publish({ path: "x" }, s),
  "files.open": (_k, c, s) => c.files.open("x", s),
  "files.read": (_k, c, s) => c.files.read("x", s),
  "files.readText": (_k, c, s) => c.files.readText("x", s),
  "files.stream": (_k, c, s) => c.files.stream("x", s),
  "files.write": (_k, c, s) => c.files.write("x", "y", s),
  "files.head": (_k, c, s) => c.files.head("x", s),
  "files.stat": (_k, c, s) => c.files.stat("x", s),
  "files.exists": (_k, c, s) => c.files.exists("x", s),
  "files.list": (_k, c, s) => c.files.list("", s),
  "files.mkdir": (_k, c, s) => c.files.mkdir("x", s),
  "files.rename": (_k, c, s) => c.files.rename("x", "y", s),
  "files.symlink": (_k, c, s) => c.files.symlink("x", "y", s),
  "files.link": (_k, c, s) => c.files.link("x", "y", s),
  "files.readlink": (_k, c, s) => c.files.readlink("x", s),
  "files.realpath": (_k, c, s) => c.files.realpath("x", s),
  "files.chmod": (_k, c, s) => c.files.chmod("x", 0o644, s),
  "files.chown": (_k, c, s) => c.files.chown("x", 0, 0, s),
  "files.utimes": (_k, c, s) => c.files.utimes("x", {}, s),
  "files.truncate": (_k, c, s) => c.files.truncate("x", 0, s),
  "files.remove": (_k, c, s) => c.files.remove("x", s),
  "files.du": (_k, c, s) => c.files.du("", s),
  "files.find": (_k, c, s) => c.files.find("", "*", s),
  "files.grep": (_k, c, s) => c.files.grep("", "x", s),
  "files.listXattrs": (_k, c, s) => c.files.listXattrs("x", s),
  "files.getXattr": (_k, c, s) => c.files.getXattr("x", "user.a", s),
  "files.setXattr": (_k, c, s) => c.files.setXattr("x", "user.a", "v", s),
  "files.removeXattr": (_k, c, s) => c.files.removeXattr("x", "user.a", s),
  "exec.run": (_k, c, s) => c.exec.run({ runtime: "shell", source: "true" }, s),
  "exec.stream": (_k, c, s) => c.exec.stream({ runtime: "shell", source: "true" }, s),
  "exec.start": (_k, c, s) => c.exec.start({ runtime: "shell", source: "true" }, s),
  "exec.attach": (_k, c, s) => c.exec.attach("ex_1", s),
  "exec.get": (_k, c, s) => c.exec.get("ex_1", s),
  "exec.metrics": (_k, c, s) => c.exec.metrics("ex_1", s),
  "exec.list": (_k, c, s) => c.exec.list(s),
  "exec.kill": (_k, c, s) => c.exec.kill("ex_1", s),
  "checkpoints.create": (_k, c, s) => c.checkpoints.create("v1", s),
  "checkpoints.list": (_k, c, s) => c.checkpoints.list(s),
  "checkpoints.restore": (_k, c, s) => c.checkpoints.restore("v1", s),
  "tokens.create": (_k, c, s) => c.tokens.create({ scope: "ro" }, s),
  "tokens.revoke": (_k, c, s) => c.tokens.revoke(s),
  "previews.open": (_k, c, s) => c.previews.open({ port: 3000 }, s),
  "previews.list": (_k, c, s) => c.previews.list(s),
  "previews.close": (_k, c, s) => c.previews.close(3000, s),
  "terminals.open": (_k, c, s) => c.terminals.open({ runtime: "shell", cols: 80, rows: 24 }, s),
  "terminals.list": (_k, c, s) => c.terminals.list(s),
  "terminals.get": (_k, c, s) => c.terminals.get("t1", s),
  "terminals.end": (_k, c, s) => c.terminals.end("t1", s),
};

describe("AbortSignal", () => {
  it.each(Object.keys(CALLS))("%s hands its signal to the request: aborted is EABORTED", async (name) => {
    const net = signalFetch();
    const client = new ComputerClient({ url: "http://computer.test", token: "t", fetch: net.fetch });
    const call = CALLS[name];
    if (call === undefined) throw new Error(name);
    await expect(
      call(client, client.computer("demo"), { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      code: "EABORTED",
    });
    expect(net.answered).toEqual([]);
  });

  it("the control itself answers: the same calls without a signal reach the fetch", async () => {
    const net = signalFetch();
    const client = new ComputerClient({ url: "http://computer.test", token: "t", fetch: net.fetch });
    await client.computers.get("a");
    await client.computer("demo").files.stat("x");
    expect(net.answered).toEqual(["GET /v1/computers/a", "POST /v1/computers/demo/fs"]);
  });

  it("watch ends without a request when its signal is aborted", async () => {
    const net = signalFetch();
    const client = new ComputerClient({ url: "http://computer.test", token: "t", fetch: net.fetch });
    const feed = client.computer("demo").watch({ signal: AbortSignal.abort() });
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(net.answered).toEqual([]);
  });
});
