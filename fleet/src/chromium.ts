/**
 * Debian's headless Chromium for browser tests (playwright-core drives it; no browser is
 * downloaded). scripts/ensure-deps.sh installs the `chromium` package; CHROMIUM_PATH overrides
 * where it is. On CI a missing browser fails the run; elsewhere tests skip, saying why.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Where the browser is. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Flags for a headless run as root on a machine without network beyond loopback. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** True when the browser is installed (throws on CI when it is not). */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(`no Chromium at ${CHROMIUM} on CI (scripts/ensure-deps.sh installs it)`);
  console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  return false;
}

/** Starts headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}
