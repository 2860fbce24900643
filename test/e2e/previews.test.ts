/**
 * Preview URLs through the real stack (local Worker + computerd host + FUSE + bubblewrap, the
 * computer without egress): `python3 -m http.server` started as a background process is
 * fetched through its preview URL with no token; a WebSocket echo server is reached through
 * one; the sandbox's network is one per computer (a second command reaches the server on
 * localhost); tampered and expired links are 403; an `ro` token cannot open a port; a killed
 * server's port and a port nothing listens on answer 502 ECONNREFUSED at once; a second
 * preview of a port answers the same URL; deleting the computer closes its previews.
 */

import { readFileSync } from "node:fs";
import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { type Computer, ComputerClient, ComputerError, type PreviewInfo } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./eventually.ts";
import { createComputerOn, runContainer } from "./fleet-computer.ts";

let fleet: Fleet;

/** The first answer of `url` that is not a refusal (the server is still starting). */
async function whenServing(url: string): Promise<Response> {
  return eventually(async () => {
    const res = await fetch(url);
    if (res.status !== 502) return res;
    await res.body?.cancel();
    return undefined;
  });
}

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
}

/** The code and status an SDK call failed with. */
async function failure(call: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ComputerError) return { status: err.status, code: err.code };
    throw err;
  }
  throw new Error("the call succeeded");
}

function background(api: Computer, source: string) {
  return api.exec.run({ runtime: "container", source, detach: true });
}

describe.skipIf(!containerCapable)("preview URLs", () => {
  let api: Computer;

  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: true });
    api = await createComputerOn(fleet, "e2e-preview");
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it("reaches python3 -m http.server, started detached, through the URL without a token", async () => {
    await api.files.write("site/hello.txt", "hello from the computer\n");
    const server = await background(api, "cd site && exec python3 -m http.server 3000 --bind 127.0.0.1");
    expect(server).toMatchObject({ status: "running", detached: true });
    const preview = await api.previews.open({ port: 3000 });
    expect(preview).toMatchObject({ port: 3000, access: "public" });
    expect(preview.url.startsWith(`${fleet.url}/p/e2e-preview/3000/`)).toBe(true);
    const res = await whenServing(`${preview.url}hello.txt`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("hello from the computer\n");
    const listing = await fetch(preview.url);
    expect(await listing.text()).toContain('href="hello.txt"');
    // Every command of the computer shares one network: the next one reaches the server.
    const probe = await runContainer(
      api,
      `python3 -c "import urllib.request; print(urllib.request.urlopen('http://localhost:3000/hello.txt').read().decode(), end='')"`,
    );
    expect(probe.stdout).toBe("hello from the computer\n");
    // A second preview of the port answers the same URL.
    expect((await api.previews.open({ port: 3000 })).url).toBe(preview.url);
    expect((await api.previews.list()).map((p: PreviewInfo) => p.port)).toEqual([3000]);

    // Killed, the server's port answers 502 with a JSON error, at once.
    expect((await api.exec.kill(server.id)).status).toBe("killed");
    const refused = await errorOf(await fetch(`${preview.url}hello.txt`));
    expect(refused).toMatchObject({ status: 502, code: "ECONNREFUSED" });
    expect(refused.message).toMatch(/port 3000/);
  }, 120_000);

  it("carries a WebSocket to an echo server in the computer", async () => {
    await api.files.write(
      "ws-echo.py",
      readFileSync(new URL("./fixtures/ws-echo.py", import.meta.url), "utf8"),
    );
    await background(api, "exec python3 ws-echo.py 3001");
    const preview = await api.previews.open({ port: 3001 });
    const reply = await eventually(async () => {
      const socket = new WebSocket(preview.url.replace(/^http/, "ws"));
      return new Promise<string | undefined>((resolve) => {
        socket.addEventListener("open", () => socket.send("hello"));
        socket.addEventListener("message", (event) => {
          resolve(String(event.data));
          socket.close();
        });
        socket.addEventListener("error", () => resolve(undefined));
      });
    });
    expect(reply).toBe("echo hello");
  }, 120_000);

  it("refuses tampered and expired links (403), an ro token opening a port (403) and bad ports (400)", async () => {
    const preview = await api.previews.open({ port: 3002, ttlSeconds: 2 });
    const tampered = preview.url.replace(
      /(\/p[0-9a-f]{20}\.)(\d+)\./,
      (_, id: string, exp: string) => `${id}${Number(exp) + 100}.`,
    );
    expect(tampered).not.toBe(preview.url);
    expect(await errorOf(await fetch(tampered))).toMatchObject({ status: 403, code: "EFORBIDDEN" });
    const expired = await eventually(async () => {
      const res = await fetch(preview.url);
      if (res.status === 403) return errorOf(res);
      await res.body?.cancel();
      return undefined;
    });
    expect(expired).toMatchObject({ code: "EFORBIDDEN", message: "preview link expired" });

    const { token } = await api.tokens.create({ scope: "ro" });
    const readOnly = new ComputerClient({ url: fleet.url, token }).computer(api.id);
    expect(await failure(readOnly.previews.open({ port: 3003 }))).toEqual({
      status: 403,
      code: "EFORBIDDEN",
    });
    expect((await readOnly.previews.list()).length).toBeGreaterThan(0);
    for (const port of [0, 65536, -1, 3000.5]) {
      expect(await failure(api.previews.open({ port }))).toEqual({ status: 400, code: "EINVAL" });
    }
  }, 60_000);

  it("a port nothing listens on answers 502 ECONNREFUSED, not a hang", async () => {
    const preview = await api.previews.open({ port: 3999 });
    const refused = await errorOf(await fetch(preview.url, { signal: AbortSignal.timeout(20_000) }));
    expect(refused).toMatchObject({ status: 502, code: "ECONNREFUSED" });
  }, 60_000);

  it("deleting the computer closes its previews", async () => {
    const other = await createComputerOn(fleet, "e2e-preview-deleted");
    await other.files.write("index.html", "<h1>soon gone</h1>");
    await background(other, "exec python3 -m http.server 3000 --bind 127.0.0.1");
    const preview = await other.previews.open({ port: 3000 });
    expect(await (await whenServing(preview.url)).text()).toBe("<h1>soon gone</h1>");
    await other.delete();
    expect(await errorOf(await fetch(preview.url))).toMatchObject({ status: 404, code: "ENOENT" });
  }, 120_000);
});
