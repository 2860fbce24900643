/**
 * The web console at `/console` (console/): its page, script and styles, bundled at build time
 * (console/scripts/build-console.ts) and imported as text, so nothing comes from a CDN at run
 * time. No token is needed for these files; the console signs in against the API itself.
 * Every path under /console/ that is not a file is the page (the console routes in its hash).
 */

import styles from "../../dist/console/app.console.css";
import script from "../../dist/console/app.console.js";
import page from "../../dist/console/index.console.html";

/** The console's root path. */
export const CONSOLE_PATH = "/console";

/**
 * What the page may load: its own script and styles (xterm.js sets inline styles), Blob URLs
 * for the file viewer's images and PDFs, and the API and terminal WebSockets of this origin.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "frame-src blob:",
  "object-src blob:",
  "connect-src 'self' ws: wss:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

function asset(body: string, type: string): Response {
  return new Response(body, {
    headers: {
      "Content-Type": type,
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": CSP,
      "Referrer-Policy": "no-referrer",
    },
  });
}

/** True when `pathname` is the console's. */
export function isConsolePath(pathname: string): boolean {
  return pathname === CONSOLE_PATH || pathname.startsWith(`${CONSOLE_PATH}/`);
}

/** Serves one console request (GET or HEAD); anything else is 405. */
export function serveConsole(request: Request, url: URL): Response {
  if (request.method !== "GET" && request.method !== "HEAD")
    return new Response("method not allowed", { status: 405, headers: { Allow: "GET, HEAD" } });
  if (url.pathname === CONSOLE_PATH) return Response.redirect(`${url.origin}${CONSOLE_PATH}/`, 301);
  if (url.pathname === `${CONSOLE_PATH}/app.js`) return asset(script, "text/javascript; charset=utf-8");
  if (url.pathname === `${CONSOLE_PATH}/app.css`) return asset(styles, "text/css; charset=utf-8");
  return asset(page, "text/html; charset=utf-8");
}
