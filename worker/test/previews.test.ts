/**
 * Preview URLs in workerd, with a test launcher whose container ports are handlers: open,
 * list and close; the signed URL reaches the port with the app's own path (HTTP and a
 * WebSocket); tampered and expired links are 403; token previews need a token of that
 * computer; an ro token cannot open one; nothing listening is 502; bad ports are 400; closing
 * the preview or deleting the computer makes its URL 404.
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { previewKey, previewUrl } from "../src/previews/preview-link.ts";
import { ADMIN, api, apiJson, createComputer, expectError, mintToken } from "./helpers.ts";
import { LinkTestLauncher } from "./link-test-launcher.ts";

interface Preview {
  port: number;
  url: string;
  access: string;
  expiresAt: string;
}

async function setup(): Promise<{ id: string; launcher: LinkTestLauncher }> {
  const id = await createComputer();
  const launcher = new LinkTestLauncher();
  // The app on port 3000 answers what it was asked, as JSON.
  launcher.ports.set(3000, (request) =>
    Response.json({
      method: request.method,
      url: request.url,
      authorization: request.headers.get("authorization"),
      prefix: request.headers.get("x-forwarded-prefix"),
    }),
  );
  launcher.ports.set(4000, (request) => {
    if (request.headers.get("upgrade") !== "websocket")
      return new Response("not a websocket", { status: 426 });
    const pair = new WebSocketPair();
    const server = pair[1];
    server.accept();
    server.addEventListener("message", (event) => server.send(`echo ${String(event.data)}`));
    return new Response(null, { status: 101, webSocket: pair[0] });
  });
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useLauncher(launcher);
  });
  return { id, launcher };
}

async function open(id: string, body: Record<string, unknown>, token = ADMIN): Promise<Response> {
  return apiJson("POST", `/v1/computers/${id}/ports`, body, token);
}

async function opened(id: string, body: Record<string, unknown>): Promise<Preview> {
  const res = await open(id, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Preview;
}

describe("previews", () => {
  it("opens a port, and its URL reaches it with the app's own path, no token needed", async () => {
    const { id } = await setup();
    const preview = await opened(id, { port: 3000 });
    expect(preview).toMatchObject({ port: 3000, access: "public" });
    expect(preview.url).toMatch(
      new RegExp(`^http://computer\\.test/p/${id}/3000/p[0-9a-f]{20}\\.\\d+\\.[\\w-]{43}/$`),
    );
    expect(Date.parse(preview.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    const res = await SELF.fetch(`${preview.url}static/app.js?v=1`, {
      headers: { Authorization: "Basic app" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/^sandbox /);
    const seen = (await res.json()) as Record<string, string>;
    expect(seen).toMatchObject({ method: "GET", authorization: "Basic app" });
    expect(new URL(seen.url ?? "").pathname + new URL(seen.url ?? "").search).toBe("/static/app.js?v=1");
    expect(seen.prefix).toBe(new URL(preview.url).pathname.replace(/\/$/, ""));
  });

  it("carries WebSocket upgrades to the port", async () => {
    const { id } = await setup();
    const preview = await opened(id, { port: 4000 });
    const res = await SELF.fetch(preview.url, { headers: { Upgrade: "websocket" } });
    expect(res.status).toBe(101);
    const socket = res.webSocket;
    if (socket === null) throw new Error("no websocket");
    socket.accept();
    const reply = new Promise<string>((resolve) =>
      socket.addEventListener("message", (event) => resolve(String(event.data))),
    );
    socket.send("hello");
    expect(await reply).toBe("echo hello");
    socket.close();
  });

  it("a second preview of a port answers the same URL; with the other access it is 409 EEXIST", async () => {
    const { id } = await setup();
    const first = await opened(id, { port: 3000 });
    const again = await open(id, { port: 3000, ttlSeconds: 60 });
    expect(again.status).toBe(200);
    expect(((await again.json()) as Preview).url).toBe(first.url);
    await expectError(await open(id, { port: 3000, access: "token" }), 409, "EEXIST");
    const list = (await (await api(`/v1/computers/${id}/ports`)).json()) as { previews: Preview[] };
    expect(list.previews.map((p) => [p.port, p.url])).toEqual([[3000, first.url]]);
  });

  it("a tampered or expired link is 403; a closed preview's URL is 404", async () => {
    const { id } = await setup();
    const preview = await opened(id, { port: 3000 });
    const tampered = [
      preview.url.replace(
        /(\/p[0-9a-f]{20}\.)(\d+)\./,
        (_, id: string, exp: string) => `${id}${Number(exp) + 1}.`,
      ),
      preview.url.replace("/3000/", "/3001/"),
      preview.url.replace(/\/p([0-9a-f])/, (_, c: string) => `/p${c === "0" ? "1" : "0"}`),
      preview.url.replace(/[\w-]{43}\/$/, `${"A".repeat(43)}/`),
    ];
    for (const url of tampered) await expectError(await SELF.fetch(url), 403, "EFORBIDDEN");
    const id0 = new URL(preview.url).pathname.split("/")[4]?.split(".")[0] ?? "";
    const past = Math.floor(Date.now() / 1000) - 1;
    const key = await previewKey(ADMIN);
    const expired = await previewUrl(key, "http://computer.test", {
      computer: id,
      port: 3000,
      id: id0,
      expires: past,
    });
    const body = await expectError(await SELF.fetch(expired), 403, "EFORBIDDEN");
    expect(body.error.message).toMatch(/expired/);
    expect((await api(`/v1/computers/${id}/ports/3000`, { method: "DELETE" })).status).toBe(204);
    await expectError(await SELF.fetch(preview.url), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}/ports/3000`, { method: "DELETE" }), 404, "ENOENT");
  });

  it("a token preview needs a current token of that computer, which does not reach the app", async () => {
    const { id } = await setup();
    const other = await createComputer();
    const preview = await opened(id, { port: 3000, access: "token" });
    expect(preview.access).toBe("token");
    await expectError(await SELF.fetch(preview.url), 401, "EUNAUTHORIZED");
    const foreign = await mintToken(other, "rw");
    await expectError(
      await SELF.fetch(preview.url, { headers: { Authorization: `Bearer ${foreign}` } }),
      403,
      "EFORBIDDEN",
    );
    const ro = await mintToken(id, "ro");
    const res = await SELF.fetch(preview.url, { headers: { Authorization: `Bearer ${ro}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { authorization: string | null }).authorization).toBeNull();
    expect((await api(`/v1/computers/${id}/tokens`, { method: "DELETE" })).status).toBe(204);
    await expectError(
      await SELF.fetch(preview.url, { headers: { Authorization: `Bearer ${ro}` } }),
      401,
      "EUNAUTHORIZED",
    );
  });

  it("an ro token lists previews but cannot open or close one", async () => {
    const { id } = await setup();
    await opened(id, { port: 3000 });
    const ro = await mintToken(id, "ro");
    await expectError(await open(id, { port: 5000 }, ro), 403, "EFORBIDDEN");
    await expectError(
      await api(`/v1/computers/${id}/ports/3000`, { method: "DELETE", token: ro }),
      403,
      "EFORBIDDEN",
    );
    const list = await api(`/v1/computers/${id}/ports`, { token: ro });
    expect(((await list.json()) as { previews: Preview[] }).previews).toHaveLength(1);
  });

  it("a port nothing listens on answers 502 ECONNREFUSED", async () => {
    const { id } = await setup();
    const preview = await opened(id, { port: 5173 });
    const body = await expectError(await SELF.fetch(preview.url), 502, "ECONNREFUSED");
    expect(body.error.message).toContain("5173");
  });

  it.each([
    ["port 0", { port: 0 }],
    ["port 65536", { port: 65536 }],
    ["a string port", { port: "3000" }],
    ["a fractional port", { port: 3000.5 }],
    ["no port", {}],
    ["a bad access", { port: 3000, access: "private" }],
    ["a bad ttl", { port: 3000, ttlSeconds: 0 }],
  ])("%s → 400 EINVAL, nothing opened", async (_, body) => {
    const { id } = await setup();
    await expectError(await open(id, body), 400, "EINVAL");
    expect(await (await api(`/v1/computers/${id}/ports`)).json()).toEqual({ previews: [] });
  });

  it("DELETE of a port outside 1–65535 is 400 EINVAL", async () => {
    const { id } = await setup();
    await expectError(await api(`/v1/computers/${id}/ports/0`, { method: "DELETE" }), 400, "EINVAL");
    await expectError(await api(`/v1/computers/${id}/ports/70000`, { method: "DELETE" }), 400, "EINVAL");
  });

  it("deleting the computer closes its previews", async () => {
    const { id } = await setup();
    const preview = await opened(id, { port: 3000 });
    expect((await SELF.fetch(preview.url)).status).toBe(200);
    expect((await api(`/v1/computers/${id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await SELF.fetch(preview.url), 404, "ENOENT");
    await createComputer({}, id);
    await expectError(await SELF.fetch(preview.url), 404, "ENOENT");
  });

  it("a malformed preview path is 404", async () => {
    await expectError(await SELF.fetch("http://computer.test/p/Bad_Id/3000/x/"), 404, "ENOENT");
    await expectError(await SELF.fetch("http://computer.test/p/abc/99999/x/"), 404, "ENOENT");
  });
});
