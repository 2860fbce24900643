/**
 * A request to a preview URL, in the computer's Durable Object: the link must be signed, not
 * expired and the open preview of its port (closed or deleted → 404), then the request, HTTP
 * or a WebSocket upgrade, goes to that port in the container through the launcher. The app
 * sees its own path (the `/p/...` prefix removed) and `X-Forwarded-*` headers.
 */
import type { ComputerContext } from "../computer/context.ts";
import { ApiError } from "../http/errors.ts";
import { parsePreviewLink, previewBase, previewKey, verifyPreviewLink } from "./preview-link.ts";

/**
 * Preview pages are the user's code on the API's origin: a sandboxing CSP gives them an opaque
 * origin (scripts, forms and WebSockets work; the API origin's storage is out of reach), as
 * for artifact links.
 */
const PREVIEW_CSP = "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads";

/** Serves one request to a preview URL (the router has verified the token and the caller). */
export async function servePreview(host: ComputerContext, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const link = parsePreviewLink(url);
  if (link === undefined) throw new ApiError("ENOENT", "no such preview");
  const claims = await verifyPreviewLink(await previewKey(host.env.COMPUTER_ADMIN_TOKEN), link, Date.now());
  const record = host.records.get();
  const open = record?.state === "ready" ? host.previews.get(link.port, Date.now()) : undefined;
  if (open === undefined || open.id !== claims.id) throw new ApiError("ENOENT", "this preview is closed");
  const launcher = host.execs().launcher();
  if (launcher === undefined) throw new ApiError("EUNAVAILABLE", "runtime container not available");
  const headers = new Headers(request.headers);
  // A token preview's bearer token was for us, not for the app.
  if (open.access === "token") headers.delete("authorization");
  headers.set("X-Forwarded-Host", url.host);
  headers.set("X-Forwarded-Proto", url.protocol.replace(/:$/, ""));
  headers.set("X-Forwarded-Prefix", previewBase(link));
  const forwarded = new Request(`http://preview${link.path}`, {
    method: request.method,
    headers,
    body: request.method === "GET" || request.method === "HEAD" ? null : request.body,
    redirect: "manual",
  });
  const response = await launcher.fetchPort(link.computer, link.port, forwarded);
  if (response.webSocket !== null && response.webSocket !== undefined) return response;
  const answer = new Response(response.body, response);
  answer.headers.set("Content-Security-Policy", PREVIEW_CSP);
  answer.headers.set("Referrer-Policy", "no-referrer");
  return answer;
}
