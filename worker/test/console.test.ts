/** /console serves the web console's page, script and styles without a token, with a strict CSP. */
import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";

describe("web console assets", () => {
  it("serves the page at /console/ (and any path under it), the script and the styles", async () => {
    const redirect = await api("/console", { token: null, redirect: "manual" });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toMatch(/\/console\/$/);
    for (const path of ["/console/", "/console/anything/else"]) {
      const page = await api(path, { token: null });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('<script type="module" src="/console/app.js">');
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    }
    const script = await api("/console/app.js", { token: null });
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(10_000);
    const styles = await api("/console/app.css", { token: null });
    expect(await styles.text()).toContain(".xterm");
    expect((await api("/console/", { method: "POST", token: null })).status).toBe(405);
  });
});
