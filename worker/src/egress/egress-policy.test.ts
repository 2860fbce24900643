import { describe, expect, it } from "vitest";
import { EgressDenied, egressAllows, egressEnabled, hostAllowed, policyFetch } from "./egress-policy.ts";

describe("hostAllowed", () => {
  it.each([
    ["example.com", "https://example.com/x", true],
    ["example.com", "http://example.com:8080/", true],
    ["example.com", "https://api.example.com/", false],
    ["*.example.com", "https://api.example.com/", true],
    ["*.example.com", "https://example.com/", false],
    ["*.example.com", "https://evil-example.com/", false],
    ["127.0.0.1:8080", "http://127.0.0.1:8080/", true],
    ["127.0.0.1:8080", "http://127.0.0.1:8081/", false],
    ["example.com:443", "https://example.com/", true],
    ["example.com:80", "https://example.com/", false],
    ["example.com", "ftp://example.com/", false],
  ])("%s admits %s: %s", (entry, url, allowed) => {
    expect(hostAllowed(entry, new URL(url))).toBe(allowed);
  });
});

describe("egressAllows / egressEnabled", () => {
  it("none admits nothing, all admits everything, an allowlist only its hosts", () => {
    expect(egressAllows("none", "https://example.com/")).toBe(false);
    expect(egressAllows("all", "https://example.com/")).toBe(true);
    expect(egressAllows({ allow: ["example.com"] }, "https://example.com/")).toBe(true);
    expect(egressAllows({ allow: ["example.com"] }, "https://other.com/")).toBe(false);
    expect(egressAllows({ allow: ["example.com"] }, "not a url")).toBe(false);
    expect(egressEnabled("none")).toBe(false);
    expect(egressEnabled({ allow: [] })).toBe(false);
    expect(egressEnabled({ allow: ["a.com"] })).toBe(true);
  });
});

describe("policyFetch", () => {
  const policy = { allow: ["good.test"] };
  const redirectTo = (location: string) =>
    new Response(null, { status: 302, headers: { Location: location } });

  it("refuses a forbidden URL before sending anything", async () => {
    const sent: string[] = [];
    const send = async (request: Request) => {
      sent.push(request.url);
      return new Response("x");
    };
    await expect(policyFetch(policy, "https://bad.test/", undefined, send)).rejects.toBeInstanceOf(
      EgressDenied,
    );
    expect(sent).toEqual([]);
  });

  it("follows redirects hop by hop and refuses one that leaves the allowlist", async () => {
    const sent: string[] = [];
    const send = async (request: Request) => {
      sent.push(request.url);
      if (request.url === "https://good.test/a") return redirectTo("/b");
      if (request.url === "https://good.test/b") return redirectTo("https://bad.test/c");
      return new Response("end");
    };
    await expect(policyFetch(policy, "https://good.test/a", undefined, send)).rejects.toThrow(/bad\.test/);
    expect(sent).toEqual(["https://good.test/a", "https://good.test/b"]);
  });

  it("hands a redirect back unfollowed with redirect: manual", async () => {
    const send = async () => redirectTo("https://bad.test/");
    const res = await policyFetch(policy, "https://good.test/", { redirect: "manual" }, send);
    expect(res.status).toBe(302);
  });
});
