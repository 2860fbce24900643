/**
 * Artifacts: publishing a file or a directory into R2 with a manifest, immutable versions,
 * registry listings per principal, and the signed public links (no token while valid;
 * tampered or expired → 403). Refused publishes leave the bucket and the registry unchanged.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { publishFor } from "../src/artifacts/publish-version.ts";
import { signUrl, urlSigningKey } from "../src/artifacts/signed-url.ts";
import { ApiError } from "../src/http/errors.ts";
import { ADMIN, api, apiJson, createComputer, expectError, fsOp, mintToken, writeFile } from "./helpers.ts";

interface Published {
  name: string;
  version: string;
  type: string;
  url: string;
  expiresAt: string;
  files: { path: string; size: number; sha256: string }[];
  bytes: number;
}

async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function unique(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

async function publish(id: string, body: Record<string, unknown>, token: string = ADMIN): Promise<Published> {
  const res = await apiJson("POST", `/v1/computers/${id}/artifacts`, body, token);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Published;
}

/** Fetches a public link without any token. */
function open(url: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(url, { ...init, redirect: "manual" });
}

async function bucketKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.ARTIFACTS.list(cursor === undefined ? {} : { cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys.sort();
}

describe("publish", () => {
  it("a file: manifest with size and sha-256, link serves it without a token, versions count up", async () => {
    const id = await createComputer();
    const name = unique("report");
    await writeFile(id, "out/report.txt", "hello artifacts\n");
    const first = await publish(id, { path: "out/report.txt", name });
    expect(first).toMatchObject({ name, version: "1", type: "file", bytes: 16 });
    expect(first.files).toEqual([
      { path: "report.txt", size: 16, sha256: await sha256Hex("hello artifacts\n") },
    ]);
    expect(first.url).toMatch(
      new RegExp(`^http://computer\\.test/a/${name}/1/\\d+\\.[A-Za-z0-9_-]{43}/report\\.txt$`),
    );
    expect(Date.parse(first.expiresAt) - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
    const res = await open(first.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("etag")).toBe(`"${first.files[0]?.sha256}"`);
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(await res.text()).toBe("hello artifacts\n");
    // The link's root redirects to the file.
    const root = await open(first.url.replace(/report\.txt$/, ""));
    expect(root.status).toBe(301);
    expect(root.headers.get("location")).toMatch(/\/report\.txt$/);
    await writeFile(id, "out/report.txt", "second\n");
    const second = await publish(id, { path: "/out/report.txt", name });
    expect(second.version).toBe("2");
    expect(await (await open(second.url)).text()).toBe("second\n");
    expect(await (await open(first.url)).text()).toBe("hello artifacts\n");
  });

  it("a directory: every file under it, manifest in R2 matching the content, index and files served", async () => {
    const id = await createComputer();
    const name = unique("site");
    const png = new Uint8Array([137, 80, 78, 71, 0, 1, 2, 3, 255]);
    await writeFile(id, "site/index.html", "<h1>hi</h1>");
    await writeFile(id, "site/css/main.css", "body{}");
    await writeFile(id, "site/img/logo.png", png);
    await writeFile(id, "site/docs/readme.md", "# docs");
    expect((await fsOp(id, { op: "symlink", target: "index.html", path: "site/link.html" })).status).toBe(
      200,
    );
    const published = await publish(id, { path: "site", name, version: "1.0.0" });
    expect(published.type).toBe("dir");
    expect(published.files).toEqual([
      { path: "css/main.css", size: 6, sha256: await sha256Hex("body{}") },
      { path: "docs/readme.md", size: 6, sha256: await sha256Hex("# docs") },
      { path: "img/logo.png", size: 9, sha256: await sha256Hex(png) },
      { path: "index.html", size: 11, sha256: await sha256Hex("<h1>hi</h1>") },
    ]);
    expect(await bucketKeys()).toEqual(
      expect.arrayContaining([
        `${name}/1.0.0/manifest.json`,
        `${name}/1.0.0/files/css/main.css`,
        `${name}/1.0.0/files/img/logo.png`,
      ]),
    );
    const stored = await env.ARTIFACTS.get(`${name}/1.0.0/manifest.json`);
    const manifest = (await stored?.json()) as {
      files: { path: string; sha256: string }[];
      computer: string;
    };
    expect(manifest.computer).toBe(id);
    for (const file of manifest.files) {
      const object = await env.ARTIFACTS.get(`${name}/1.0.0/files/${file.path}`);
      const bytes = new Uint8Array(await (object as R2ObjectBody).arrayBuffer());
      expect(await sha256Hex(bytes)).toBe(file.sha256);
    }
    expect(published.url).toMatch(/\/$/);
    const index = await open(published.url);
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await index.text()).toBe("<h1>hi</h1>");
    const css = await open(`${published.url}css/main.css`);
    expect([css.status, css.headers.get("content-type"), await css.text()]).toEqual([
      200,
      "text/css; charset=utf-8",
      "body{}",
    ]);
    const logo = await open(`${published.url}img/logo.png`);
    expect(logo.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await logo.arrayBuffer())).toEqual(png);
    // A directory without index.html gets a generated index; without the slash it redirects.
    const docs = await open(`${published.url}docs`);
    expect(docs.status).toBe(301);
    expect(docs.headers.get("location")).toMatch(/\/docs\/$/);
    const listing = await (await open(`${published.url}docs/`)).text();
    expect(listing).toContain('<a href="readme.md">readme.md</a>');
    const json = await open(`${published.url}?manifest`);
    expect(await json.json()).toMatchObject({ name, version: "1.0.0", type: "dir", bytes: 32 });
    await expectError(await open(`${published.url}link.html`), 404, "ENOENT");
    await expectError(await open(`${published.url}nope.txt`), 404, "ENOENT");
  });

  it("streams a multi-chunk file into R2 and serves byte ranges", async () => {
    const id = await createComputer();
    const big = new Uint8Array(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
    await writeFile(id, "big.bin", big);
    const published = await publish(id, { path: "big.bin", name: unique("big") });
    expect(published.files[0]?.sha256).toBe(await sha256Hex(big));
    const part = await open(published.url, { headers: { Range: "bytes=1048570-1048580" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1048570-1048580/${big.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(big.subarray(1048570, 1048581));
    const whole = await open(published.url);
    expect(whole.headers.get("content-length")).toBe(String(big.length));
    expect(await sha256Hex(new Uint8Array(await whole.arrayBuffer()))).toBe(await sha256Hex(big));
  });

  it("versions are immutable: an existing name@version is 409 EEXIST and changes nothing", async () => {
    const id = await createComputer();
    const name = unique("fixed");
    await writeFile(id, "a.txt", "a");
    const first = await publish(id, { path: "a.txt", name, version: "1" });
    await writeFile(id, "a.txt", "changed");
    const before = await bucketKeys();
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/artifacts`, { path: "a.txt", name, version: "1" }),
      409,
      "EEXIST",
    );
    expect(await bucketKeys()).toEqual(before);
    expect(await (await open(first.url)).text()).toBe("a");
    // The default version continues after the highest integer one.
    expect((await publish(id, { path: "a.txt", name })).version).toBe("2");
    // A name belongs to the computer that first published it.
    const other = await createComputer();
    await writeFile(other, "a.txt", "other");
    await expectError(
      await apiJson("POST", `/v1/computers/${other}/artifacts`, { path: "a.txt", name }),
      409,
      "EEXIST",
    );
  });

  it("bad input is refused before anything is written", async () => {
    const id = await createComputer();
    await writeFile(id, "file.txt", "x");
    await writeFile(id, "empty/.keep-dir/x", "");
    expect((await api(`/v1/computers/${id}/files/empty/.keep-dir/x`, { method: "DELETE" })).status).toBe(204);
    const before = await bucketKeys();
    const listBefore = await (await api("/v1/artifacts?limit=1000")).json();
    const post = (body: unknown) => apiJson("POST", `/v1/computers/${id}/artifacts`, body);
    await expectError(await post({ path: "missing.txt" }), 404, "ENOENT");
    await expectError(await post({ path: "missing/dir", name: "x-missing" }), 404, "ENOENT");
    for (const name of ["Bad Name", "UPPER", "a/b", "a@b", "-lead", "", "x".repeat(65)]) {
      await expectError(await post({ path: "file.txt", name }), 400, "EINVAL");
    }
    for (const version of ["", "a b", "1/2", "v@1", ".1"]) {
      await expectError(await post({ path: "file.txt", name: unique("v"), version }), 400, "EINVAL");
    }
    await expectError(await post({ path: "file.txt", ttlSeconds: 0 }), 400, "EINVAL");
    await expectError(await post({ path: "file.txt", ttlSeconds: 366 * 86400 }), 400, "EINVAL");
    await expectError(await post({ path: "../etc/passwd" }), 400, "EINVAL");
    await expectError(await post({}), 400, "EINVAL");
    await expectError(await post({ path: 42 }), 400, "EINVAL");
    await expectError(await post({ path: "/" }), 400, "EINVAL");
    await expectError(await post({ path: "empty", name: unique("empty") }), 400, "EINVAL");
    await expectError(await post("not json"), 400, "EINVAL");
    await expectError(
      await apiJson("POST", "/v1/computers/t-no-such-computer/artifacts", { path: "a" }),
      404,
      "ENOENT",
    );
    expect(await bucketKeys()).toEqual(before);
    expect(await (await api("/v1/artifacts?limit=1000")).json()).toEqual(listBefore);
  });
});

describe("publishFor (from outside the computer's DO)", () => {
  it("publishes over RPC and keeps error codes", async () => {
    const id = await createComputer();
    const name = unique("rpc");
    await writeFile(id, "dir/x.txt", "via rpc");
    const published = await publishFor(env, id, "/dir", { name, origin: "https://public.example" });
    expect(published).toMatchObject({ name, version: "1", type: "dir", files: [{ path: "x.txt", size: 7 }] });
    expect(published.url.startsWith(`https://public.example/a/${name}/1/`)).toBe(true);
    const err = await publishFor(env, id, "/missing", { name }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("ENOENT");
  });
});

describe("registry", () => {
  it("lists everything for the admin, only its own for a computer token", async () => {
    const [a, b] = [await createComputer(), await createComputer()];
    const [nameA, nameB] = [unique("reg-a"), unique("reg-b")];
    await writeFile(a, "f", "a");
    await writeFile(b, "f", "b");
    await publish(a, { path: "f", name: nameA });
    await publish(a, { path: "f", name: nameA, version: "2.0" });
    await publish(b, { path: "f", name: nameB }, await mintToken(b, "rw"));
    const names = async (token: string) => {
      const res = await api("/v1/artifacts?limit=1000", { token });
      expect(res.status).toBe(200);
      const { artifacts } = (await res.json()) as { artifacts: { name: string; computer: string }[] };
      return artifacts.map((x) => x.name).filter((n) => n === nameA || n === nameB);
    };
    expect(await names(ADMIN)).toEqual([nameA, nameB]);
    const tokenA = await mintToken(a, "ro");
    const tokenB = await mintToken(b, "ro");
    expect(await names(tokenA)).toEqual([nameA]);
    expect(await names(tokenB)).toEqual([nameB]);
    const all = (await (await api("/v1/artifacts?limit=1000", { token: tokenA })).json()) as {
      artifacts: { computer: string }[];
    };
    expect(all.artifacts.every((x) => x.computer === a)).toBe(true);
    const detail = await api(`/v1/artifacts/${nameA}`, { token: tokenA });
    expect(detail.status).toBe(200);
    const body = (await detail.json()) as { computer: string; versions: { version: string; url: string }[] };
    expect(body.computer).toBe(a);
    expect(body.versions.map((v) => v.version)).toEqual(["2.0", "1"]);
    for (const v of body.versions) expect(await (await open(v.url)).text()).toBe("a");
    await expectError(await api(`/v1/artifacts/${nameA}`, { token: tokenB }), 404, "ENOENT");
    await expectError(await api(`/v1/artifacts/${unique("none")}`), 404, "ENOENT");
    await expectError(await api("/v1/artifacts/Bad%20Name"), 400, "EINVAL");
    // A read-only token lists but cannot publish; a revoked token is refused.
    await expectError(
      await apiJson("POST", `/v1/computers/${a}/artifacts`, { path: "f" }, tokenA),
      403,
      "EFORBIDDEN",
    );
    expect((await api(`/v1/computers/${a}/tokens`, { method: "DELETE" })).status).toBe(204);
    await expectError(await api("/v1/artifacts", { token: tokenA }), 401, "EUNAUTHORIZED");
    await expectError(await api("/v1/artifacts", { token: null }), 401, "EUNAUTHORIZED");
  });

  it("pages by name", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    const prefix = unique("page");
    for (const n of ["1", "2", "3"]) await publish(id, { path: "f", name: `${prefix}-${n}` });
    const token = await mintToken(id, "ro");
    const first = (await (await api("/v1/artifacts?limit=2", { token })).json()) as {
      artifacts: unknown[];
      next: string;
    };
    expect(first.artifacts).toHaveLength(2);
    const rest = (await (await api(`/v1/artifacts?limit=2&after=${first.next}`, { token })).json()) as {
      artifacts: { name: string }[];
      next?: string;
    };
    expect(rest.artifacts.map((x) => x.name)).toEqual([`${prefix}-3`]);
    expect(rest.next).toBeUndefined();
  });
});

describe("signed links", () => {
  it("tampered or expired links are 403; a link works without any token", async () => {
    const id = await createComputer();
    const name = unique("signed");
    await writeFile(id, "doc.txt", "secret-ish");
    const { url } = await publish(id, { path: "doc.txt", name, ttlSeconds: 60 });
    expect((await open(url)).status).toBe(200);
    const match = /\/a\/([^/]+)\/([^/]+)\/(\d+)\.([^/]+)\/(.*)$/.exec(url);
    const [, , version = "", expires = "", signature = ""] = match ?? [];
    const flip = (s: string) => (s.startsWith("A") ? `B${s.slice(1)}` : `A${s.slice(1)}`);
    const base = `http://computer.test/a`;
    const cases = [
      `${base}/${name}/${version}/${expires}.${flip(signature)}/doc.txt`,
      `${base}/${name}/${version}/${Number(expires) + 1000}.${signature}/doc.txt`,
      `${base}/${name}/2/${expires}.${signature}/doc.txt`,
      `${base}/${unique("other")}/${version}/${expires}.${signature}/doc.txt`,
      `${base}/${name}/${version}/${expires}/doc.txt`,
      `${base}/${name}/${version}/garbage/doc.txt`,
    ];
    for (const bad of cases) await expectError(await open(bad), 403, "EFORBIDDEN");
    // Correctly signed but expired.
    const key = await urlSigningKey(ADMIN);
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = await signUrl(key, { name, version, scope: "", expires: past });
    const res = await open(`${base}/${name}/${version}/${expired}/doc.txt`);
    const body = await expectError(res, 403, "EFORBIDDEN");
    expect(body.error.message).toContain("expired");
    // A link signed for one file opens that file only.
    const future = Math.floor(Date.now() / 1000) + 60;
    const scoped = await signUrl(key, { name, version, scope: "doc.txt", expires: future });
    expect(await (await open(`${base}/${name}/${version}/${scoped}/doc.txt`)).text()).toBe("secret-ish");
    await expectError(await open(`${base}/${name}/${version}/${scoped}/`), 403, "EFORBIDDEN");
    // Links are read-only.
    await expectError(await open(url, { method: "PUT", body: "x" }), 405, "ENOTSUP");
  });
});
