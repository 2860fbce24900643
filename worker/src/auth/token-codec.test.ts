/** Unit tests of the token format: round trip, tampering, expiry, key separation. */
import { describe, expect, it } from "vitest";
import { isAdminToken } from "./authenticate.ts";
import { fromBase64Url, toBase64Url } from "./base64url.ts";
import { signingKey } from "./signing-key.ts";
import { signToken, type TokenClaims, verifyToken } from "./token-codec.ts";

const claims: TokenClaims = { computer: "c-1", scope: "ro", expiresAt: 2_000_000, nonce: "n1", id: "j1" };

describe("token codec", () => {
  it("round-trips and checks expiry against the given clock", async () => {
    const key = await signingKey("secret-a");
    const token = await signToken(key, claims);
    expect(await verifyToken(key, token, 1_999_999)).toEqual({ ok: true, claims });
    expect(await verifyToken(key, token, 2_000_000)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses another key, a flipped bit and malformed text", async () => {
    const key = await signingKey("secret-a");
    const token = await signToken(key, claims);
    expect(await verifyToken(await signingKey("secret-b"), token, 0)).toEqual({
      ok: false,
      reason: "signature",
    });
    const [prefix, payload = "", signature = ""] = token.split(".");
    const flipped = `${prefix}.${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    expect(await verifyToken(key, flipped, 0)).toEqual({ ok: false, reason: "signature" });
    for (const bad of [
      "",
      "ct1.",
      "ct1.a",
      "ct1.a.b.c",
      "ct2.a.b",
      "ct1.***.***",
      token.replace("ct1.", "ct1.."),
    ]) {
      expect((await verifyToken(key, bad, 0)).ok).toBe(false);
    }
  });

  it("refuses well-signed claims of the wrong shape", async () => {
    const key = await signingKey("secret-a");
    const head = `ct1.${toBase64Url(new TextEncoder().encode(JSON.stringify({ c: "x", s: "admin", e: 9e12, n: "n", j: "j" })))}`;
    const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(head)));
    expect(await verifyToken(key, `${head}.${toBase64Url(sig)}`, 0)).toEqual({
      ok: false,
      reason: "malformed",
    });
  });

  it("base64url round-trips every byte", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (let n = 0; n < 8; n++) expect(fromBase64Url(toBase64Url(all.subarray(n)))).toEqual(all.subarray(n));
    expect(fromBase64Url("a+b")).toBeUndefined();
    expect(fromBase64Url("a")).toBeUndefined();
  });
});

describe("isAdminToken", () => {
  it("matches exactly and never for an empty secret", async () => {
    expect(await isAdminToken("s3cret", "s3cret")).toBe(true);
    expect(await isAdminToken("s3cre", "s3cret")).toBe(false);
    expect(await isAdminToken("s3cret!", "s3cret")).toBe(false);
    expect(await isAdminToken("", "")).toBe(false);
  });
});
