/** Unit tests of artifact links: URL shape, parsing, scopes, tampering, expiry and key separation. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../http/errors.ts";
import {
  parseSignedUrl,
  type SignedUrlClaims,
  signedUrl,
  signUrl,
  urlSigningKey,
  verifySignedUrl,
} from "./signed-url.ts";

const claims: SignedUrlClaims = { name: "site", version: "1.0.0+b", scope: "", expires: 2_000_000 };
const NOW = 1_999_999_000;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (err) {
    return err instanceof ApiError ? `${err.code} ${err.message}` : String(err);
  }
}

describe("artifact links", () => {
  it("round-trip: a URL parses back and verifies", async () => {
    const key = await urlSigningKey("admin-a");
    const url = await signedUrl(key, "https://c.example", claims, "css/a b.css");
    expect(url).toMatch(
      /^https:\/\/c\.example\/a\/site\/1\.0\.0%2Bb\/2000000\.[A-Za-z0-9_-]{43}\/css\/a%20b\.css$/,
    );
    const link = parseSignedUrl(new URL(url).pathname);
    expect(link).toMatchObject({ name: "site", version: "1.0.0+b", path: "css/a b.css" });
    expect(await verifySignedUrl(key, link as NonNullable<typeof link>, NOW)).toEqual(claims);
  });

  it("parses roots and directories, and only its own prefix", () => {
    expect(parseSignedUrl("/a/n/1/t")?.path).toBe("");
    expect(parseSignedUrl("/a/n/1/t/")?.path).toBe("");
    expect(parseSignedUrl("/a/n/1/t/d/")?.path).toBe("d/");
    expect(parseSignedUrl("/v1/artifacts")).toBeUndefined();
    expect(parseSignedUrl("/ab/n/1/t")).toBeUndefined();
    for (const bad of [
      "/a/N/1/t/x",
      "/a/n/1/t/../x",
      "/a/n/1/t/%2e%2e/x",
      "/a/n/%zz/t/x",
      "/a/n/1//x",
      "/a/n/",
    ]) {
      expect(() => parseSignedUrl(bad), bad).toThrow(/no such artifact link/);
    }
  });

  it("refuses other keys, other claims, malformed tokens and expired links", async () => {
    const key = await urlSigningKey("admin-a");
    const token = await signUrl(key, claims);
    const link = { name: "site", version: "1.0.0+b", token, path: "index.html" };
    expect(await codeOf(verifySignedUrl(key, link, NOW))).toBe("ok");
    expect(await codeOf(verifySignedUrl(await urlSigningKey("admin-b"), link, NOW))).toBe(
      "EFORBIDDEN invalid artifact link",
    );
    expect(await codeOf(verifySignedUrl(key, { ...link, name: "other" }, NOW))).toBe(
      "EFORBIDDEN invalid artifact link",
    );
    expect(await codeOf(verifySignedUrl(key, { ...link, version: "1.0.1" }, NOW))).toBe(
      "EFORBIDDEN invalid artifact link",
    );
    expect(
      await codeOf(verifySignedUrl(key, { ...link, token: `2000001.${token.split(".")[1]}` }, NOW)),
    ).toBe("EFORBIDDEN invalid artifact link");
    for (const bad of ["", "2000000", "2000000.", "x.y", `${token}x`, `-1.${token.split(".")[1]}`]) {
      expect(await codeOf(verifySignedUrl(key, { ...link, token: bad }, NOW))).toBe(
        "EFORBIDDEN invalid artifact link",
      );
    }
    expect(await codeOf(verifySignedUrl(key, link, 2_000_000_000))).toBe("EFORBIDDEN artifact link expired");
  });

  it("a link scoped to one file opens that file only", async () => {
    const key = await urlSigningKey("admin-a");
    const token = await signUrl(key, { ...claims, scope: "a.txt" });
    const base = { name: "site", version: "1.0.0+b", token };
    expect(await codeOf(verifySignedUrl(key, { ...base, path: "a.txt" }, NOW))).toBe("ok");
    expect(await codeOf(verifySignedUrl(key, { ...base, path: "b.txt" }, NOW))).toBe(
      "EFORBIDDEN invalid artifact link",
    );
    expect(await codeOf(verifySignedUrl(key, { ...base, path: "" }, NOW))).toBe(
      "EFORBIDDEN invalid artifact link",
    );
  });

  it("link keys differ from token keys", async () => {
    const { signingKey } = await import("../auth/signing-key.ts");
    const data = new TextEncoder().encode("x");
    const a = new Uint8Array(await crypto.subtle.sign("HMAC", await urlSigningKey("s"), data));
    const b = new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey("s"), data));
    expect(a).not.toEqual(b);
  });
});
