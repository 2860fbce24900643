/**
 * The web console in headless Chromium against the real local fleet: sign in with the admin
 * token, open a computer, see a file written by a container exec appear in the live tree
 * without a reload, upload a file and find it in the container's `ls`, type `ls` in the
 * terminal (xterm.js over the terminal WebSocket) and read its output. Screenshots of each step
 * go to test/e2e/.artifacts/ (CONSOLE_SCREENSHOTS overrides the folder).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { chromiumAvailable, launchChromium } from "@computer/fleet/chromium";
import type { ContractFetch } from "@computer/worker/exec-contract";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

const ID = "e2e-console";
const SHOTS = process.env.CONSOLE_SCREENSHOTS ?? join(import.meta.dirname, ".artifacts");
const runs = containerCapable && chromiumAvailable();

let fleet: Fleet;
let api: ContractFetch;
let browser: Browser;
let page: Page;

async function containerExec(source: string): Promise<{ stdout: string; status: string }> {
  const res = await api(`/v1/computers/${ID}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime: "container", source, timeoutMs: 120_000 }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { stdout: string; status: string };
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `console-${name}.png`) });
}

describe.runIf(runs)("web console in headless Chromium", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fleet = await startFleet({ computerdHost: true });
    api = fleetFetch(fleet);
    await createComputer(api, ID);
    await api(`/v1/computers/${ID}/files/src/app.ts`, {
      method: "PUT",
      body: "export function greet(name: string): string {\n  return `hello, ${name}`;\n}\n",
    });
    expect((await containerExec("true")).status).toBe("completed");
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    // Everything the console needs comes from the fleet: any other request is a bug.
    await page.route(/^https?:/, (route) =>
      route.request().url().startsWith(fleet.url) ? route.continue() : route.abort(),
    );
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await fleet?.stop();
  });

  it("signs in with the admin token and lists the computer", async () => {
    await page.goto(`${fleet.url}/console/`);
    await page.fill("#token", fleet.adminToken);
    await shot("1-sign-in");
    await page.click("button[type=submit]");
    await page.locator('[data-testid="computer-card"]', { hasText: ID }).waitFor();
    await shot("2-computers");
  });

  it("opens the computer; a file a container exec writes appears in the live tree without a reload", async () => {
    await page.locator('[data-testid="computer-card"]', { hasText: ID }).click();
    await page.locator(".live.on").waitFor();
    await page.locator('[data-path="/src"]').click();
    await page.locator('[data-path="/src/app.ts"]').click();
    await page.locator(".code .hljs-keyword", { hasText: "function" }).first().waitFor();
    const before = await page.evaluate(() => performance.timeOrigin);
    expect((await containerExec("echo 'written in the container' > from-container.txt")).status).toBe(
      "completed",
    );
    await page.locator('[data-path="/from-container.txt"]').waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => performance.timeOrigin)).toBe(before);
    await shot("3-live-tree");
  });

  it("uploads a file that the container's ls then shows", async () => {
    await page.locator('[data-path="/from-container.txt"]').click();
    await page.setInputFiles('[data-testid="upload-input"]', {
      name: "uploaded-from-browser.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("hello from the browser\n"),
    });
    await page.locator('[data-path="/uploaded-from-browser.txt"]').waitFor({ timeout: 20_000 });
    const ls = await containerExec("ls");
    expect(ls.stdout.split("\n")).toContain("uploaded-from-browser.txt");
  });

  it("types ls in the terminal and sees its output", async () => {
    await page.click('button[role=tab]:has-text("Terminal")');
    await page.click('[data-testid="open-terminal"]');
    await page
      .locator('[data-testid="terminal-state"]', { hasText: "connected" })
      .waitFor({ timeout: 30_000 });
    await page.locator(".xterm-rows", { hasText: /[$#]/ }).waitFor({ timeout: 30_000 });
    await page.locator(".xterm-helper-textarea").focus();
    await page.keyboard.type("ls\n");
    await page.locator(".xterm-rows", { hasText: "uploaded-from-browser.txt" }).waitFor({ timeout: 20_000 });
    const screen = await page.locator(".xterm-rows").innerText();
    expect(screen).toContain("from-container.txt");
    await shot("4-terminal");
  });

  it("runs a command in the exec panel with live output and lists it in the history", async () => {
    await page.click('button[role=tab]:has-text("Exec")');
    await page.fill("textarea[aria-label=Command]", "echo exec-panel-says-hi; ls src");
    await page.click("form.exec-form button[type=submit]");
    await page.locator('[data-testid="exec-output"]', { hasText: "exit 0" }).waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="exec-output"]').innerText()).toContain("exec-panel-says-hi");
    await page.locator(".exec .table .status.completed").first().waitFor();
    await shot("5-exec");
    await page.click('button[role=tab]:has-text("Files")');
    await page.locator('[data-path="/src/app.ts"]').click();
    await page.locator(".code .hljs-keyword").first().waitFor();
    await shot("6-files");
  });
});
