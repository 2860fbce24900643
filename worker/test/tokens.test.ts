/**
 * Authentication and authorization: the admin token, rw/ro computer tokens, expiry,
 * revocation, tokens of another computer, garbage and missing tokens — exact statuses.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fromBase64Url } from "../src/auth/base64url.ts";
import { signingKey } from "../src/auth/signing-key.ts";
import { signToken, type TokenClaims } from "../src/auth/token-codec.ts";
import {
  api,
  apiJson,
  createComputer,
  expectError,
  fsOp,
  mintToken,
  snapshot,
  writeFile,
} from "./helpers.ts";

function claimsOf(token: string): TokenClaims {
  const payload = token.split(".")[1] ?? "";
  const wire = JSON.parse(new TextDecoder().decode(fromBase64Url(payload))) as {
    c: string;
    s: "ro" | "rw";
    e: number;
    n: string;
    j: string;
  };
  return { computer: wire.c, scope: wire.s, expiresAt: wire.e, nonce: wire.n, id: wire.j };
}

async function forge(claims: TokenClaims, secret = env.COMPUTER_ADMIN_TOKEN): Promise<string> {
  return signToken(await signingKey(secret), claims);
}

describe("admin token", () => {
  it("is the COMPUTER_ADMIN_TOKEN binding", async () => {
    expect(env.COMPUTER_ADMIN_TOKEN).toBe("test-admin-token");
    const id = await createComputer();
    expect((await api(`/v1/computers/${id}`)).status).toBe(200);
  });

  it.each([
    ["missing", null, undefined],
    ["empty bearer", null, "Bearer "],
    ["basic auth", null, "Basic dGVzdDp0ZXN0"],
    ["wrong secret", "test-admin-tokem", undefined],
    ["prefix of the secret", "test-admin", undefined],
    ["garbage", "%%%", undefined],
    ["garbage computer token", "ct1.abc.def", undefined],
    ["computer token without signature", "ct1.e30", undefined],
  ])("%s → 401 EUNAUTHORIZED", async (_, token, header) => {
    const id = await createComputer();
    const before = await snapshot(id);
    const headers = header === undefined ? undefined : { Authorization: header };
    const res = await api(`/v1/computers/${id}/files/x.txt`, { method: "PUT", body: "x", token, headers });
    expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
    await expectError(res, 401, "EUNAUTHORIZED");
    await expectError(await api("/v1/computers", { token, headers }), 401, "EUNAUTHORIZED");
    await expectError(await api("/v1/openapi.json", { token, headers }), 401, "EUNAUTHORIZED");
    expect(await snapshot(id)).toEqual(before);
  });

  it("401s unknown routes too, so routes are not probed without a token", async () => {
    await expectError(await api("/v1/nothing", { token: null }), 401, "EUNAUTHORIZED");
  });
});

describe("computer tokens", () => {
  it("are issued with 201 { token, expiresAt }", async () => {
    const id = await createComputer();
    const now = Date.now();
    const res = await apiJson("POST", `/v1/computers/${id}/tokens`, { ttlSeconds: 60, scope: "ro" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { token: string; expiresAt: string };
    expect(body.token).toMatch(/^ct1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const expires = Date.parse(body.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(now + 59_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(claimsOf(body.token)).toMatchObject({ computer: id, scope: "ro" });
  });

  it.each([
    ["no scope", { ttlSeconds: 60 }],
    ["bad scope", { scope: "admin" }],
    ["zero ttl", { scope: "rw", ttlSeconds: 0 }],
    ["fractional ttl", { scope: "rw", ttlSeconds: 1.5 }],
    ["ttl over 90 days", { scope: "rw", ttlSeconds: 91 * 24 * 3600 }],
    ["string ttl", { scope: "rw", ttlSeconds: "60" }],
  ])("refuse %s with 400", async (_, body) => {
    const id = await createComputer();
    await expectError(await apiJson("POST", `/v1/computers/${id}/tokens`, body), 400, "EINVAL");
  });

  it("are not issued for a computer that does not exist", async () => {
    await expectError(
      await apiJson("POST", "/v1/computers/no-such-computer-x/tokens", { scope: "rw" }),
      404,
      "ENOENT",
    );
  });

  it("rw reads and writes its computer", async () => {
    const id = await createComputer();
    const token = await mintToken(id, "rw");
    expect((await api(`/v1/computers/${id}/files/a.txt`, { method: "PUT", body: "a", token })).status).toBe(
      201,
    );
    expect(await (await api(`/v1/computers/${id}/files/a.txt`, { token })).text()).toBe("a");
    expect((await fsOp(id, { op: "mkdir", path: "d" }, token)).status).toBe(200);
    expect((await apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "c1" }, token)).status).toBe(
      201,
    );
    expect((await api(`/v1/computers/${id}`, { token })).status).toBe(200);
    expect((await api(`/v1/computers/${id}/files/a.txt`, { method: "DELETE", token })).status).toBe(204);
    expect((await api("/v1/openapi.json", { token })).status).toBe(200);
  });

  it("ro reads but every write is 403 EFORBIDDEN and changes nothing", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "a");
    const token = await mintToken(id, "ro");
    const before = await snapshot(id);
    expect(await (await api(`/v1/computers/${id}/files/a.txt`, { token })).text()).toBe("a");
    expect((await api(`/v1/computers/${id}/files/a.txt`, { method: "HEAD", token })).status).toBe(200);
    expect((await api(`/v1/computers/${id}/files/`, { token })).status).toBe(200);
    expect((await api(`/v1/computers/${id}/checkpoints`, { token })).status).toBe(200);
    for (const op of ["stat", "readdir", "du", "realpath"]) {
      expect((await fsOp(id, { op, path: "/" }, token)).status).toBe(200);
    }
    expect((await fsOp(id, { op: "find", path: "/", glob: "*" }, token)).status).toBe(200);
    expect((await fsOp(id, { op: "grep", path: "/", pattern: "a" }, token)).status).toBe(200);

    const writes: Promise<Response>[] = [
      api(`/v1/computers/${id}/files/a.txt`, { method: "PUT", body: "evil", token }),
      api(`/v1/computers/${id}/files/b.txt`, { method: "PUT", body: "evil", token }),
      api(`/v1/computers/${id}/files/a.txt`, { method: "DELETE", token }),
      fsOp(id, { op: "mkdir", path: "d" }, token),
      fsOp(id, { op: "rename", from: "a.txt", to: "b.txt" }, token),
      fsOp(id, { op: "chmod", path: "a.txt", mode: "0600" }, token),
      fsOp(id, { op: "rm", path: "a.txt" }, token),
      fsOp(id, { op: "truncate", path: "a.txt", length: 0 }, token),
      apiJson("POST", `/v1/computers/${id}/checkpoints`, { name: "c1" }, token),
      apiJson("POST", `/v1/computers/${id}/exec`, { runtime: "shell", source: "rm -rf ." }, token),
    ];
    for (const res of await Promise.all(writes)) await expectError(res, 403, "EFORBIDDEN");
    expect(await snapshot(id)).toEqual(before);
  });

  it("a token for another computer → 403 EFORBIDDEN", async () => {
    const mine = await createComputer();
    const other = await createComputer();
    await writeFile(other, "secret.txt", "s");
    const token = await mintToken(mine, "rw");
    const before = await snapshot(other);
    await expectError(await api(`/v1/computers/${other}/files/secret.txt`, { token }), 403, "EFORBIDDEN");
    await expectError(
      await api(`/v1/computers/${other}/files/x`, { method: "PUT", body: "x", token }),
      403,
      "EFORBIDDEN",
    );
    await expectError(await api(`/v1/computers/${other}`, { token }), 403, "EFORBIDDEN");
    expect(await snapshot(other)).toEqual(before);
  });

  it("admin-only routes with a computer token → 403 EFORBIDDEN", async () => {
    const id = await createComputer();
    const token = await mintToken(id, "rw");
    const before = await snapshot(id);
    await expectError(await api("/v1/computers", { token }), 403, "EFORBIDDEN");
    await expectError(
      await apiJson("PUT", `/v1/computers/${id}`, { quotaBytes: 10 ** 9 * 9 }, token),
      403,
      "EFORBIDDEN",
    );
    await expectError(await api(`/v1/computers/${id}`, { method: "DELETE", token }), 403, "EFORBIDDEN");
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/tokens`, { scope: "rw" }, token),
      403,
      "EFORBIDDEN",
    );
    await expectError(
      await api(`/v1/computers/${id}/tokens`, { method: "DELETE", token }),
      403,
      "EFORBIDDEN",
    );
    await expectError(
      await apiJson("POST", `/v1/computers/${id}/fork`, { to: `${id}-f` }, token),
      403,
      "EFORBIDDEN",
    );
    expect(await snapshot(id)).toEqual(before);
    expect((await api(`/v1/computers/${id}`).then((r) => r.json())) as { quotaBytes: number }).toMatchObject({
      quotaBytes: 1024 ** 3,
    });
  });

  it("an expired token → 401 (fixed clock: a token signed with a past expiry)", async () => {
    const id = await createComputer();
    const valid = claimsOf(await mintToken(id, "rw"));
    const expired = await forge({ ...valid, expiresAt: Date.now() - 1000 });
    const body = await expectError(
      await api(`/v1/computers/${id}`, { token: expired }),
      401,
      "EUNAUTHORIZED",
    );
    expect(body.error.message).toContain("expired");
    const fresh = await forge({ ...valid, expiresAt: Date.now() + 60_000 });
    expect((await api(`/v1/computers/${id}`, { token: fresh })).status).toBe(200);
  });

  it("a tampered token → 401", async () => {
    const id = await createComputer();
    const token = await mintToken(id, "ro");
    const [prefix, , signature] = token.split(".");
    const claims = { ...claimsOf(token), scope: "rw" };
    const payload = btoa(
      JSON.stringify({ c: claims.computer, s: "rw", e: claims.expiresAt, n: claims.nonce, j: claims.id }),
    )
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const tampered = `${prefix}.${payload}.${signature}`;
    await expectError(
      await api(`/v1/computers/${id}/files/x`, { method: "PUT", body: "x", token: tampered }),
      401,
      "EUNAUTHORIZED",
    );
    const otherKey = await forge(claimsOf(token), "another-admin-token");
    await expectError(await api(`/v1/computers/${id}`, { token: otherKey }), 401, "EUNAUTHORIZED");
  });

  it("revocation (DELETE /tokens → 204) makes every earlier token 401; later tokens work", async () => {
    const id = await createComputer();
    const rw = await mintToken(id, "rw");
    const ro = await mintToken(id, "ro");
    expect((await api(`/v1/computers/${id}`, { token: rw })).status).toBe(200);
    expect((await api(`/v1/computers/${id}/tokens`, { method: "DELETE" })).status).toBe(204);
    for (const token of [rw, ro]) {
      const body = await expectError(await api(`/v1/computers/${id}`, { token }), 401, "EUNAUTHORIZED");
      expect(body.error.message).toContain("revoked");
      await expectError(
        await api(`/v1/computers/${id}/files/x`, { method: "PUT", body: "x", token }),
        401,
        "EUNAUTHORIZED",
      );
    }
    const fresh = await mintToken(id, "rw");
    expect((await api(`/v1/computers/${id}`, { token: fresh })).status).toBe(200);
  });

  it("tokens die with their computer: re-creating the id does not revive them", async () => {
    const id = await createComputer();
    const token = await mintToken(id, "rw");
    await api(`/v1/computers/${id}`, { method: "DELETE" });
    await expectError(await api(`/v1/computers/${id}`, { token }), 401, "EUNAUTHORIZED");
    await createComputer({}, id);
    await expectError(await api(`/v1/computers/${id}`, { token }), 401, "EUNAUTHORIZED");
  });
});
