/**
 * The Worker's request path: health check, authentication, route parsing, then either a
 * global route or the computer's Durable Object. Errors become the API's JSON error shape.
 */
import { getArtifact, listArtifacts } from "./artifacts/artifact-routes.ts";
import { serveArtifactLink } from "./artifacts/serve.ts";
import { parseSignedUrl } from "./artifacts/signed-url.ts";
import { authenticate } from "./auth/authenticate.ts";
import type { Principal } from "./auth/principal.ts";
import { routedByFetch } from "./computer/by-fetch.ts";
import { isConsolePath, serveConsole } from "./console/serve-console.ts";
import { parseLinkPath } from "./container/computerd-link.ts";
import type { Env } from "./env.ts";
import { ApiError, toErrorResponse } from "./http/errors.ts";
import { OPENAPI } from "./http/openapi.ts";
import { parseRoute, type Route } from "./http/route.ts";
import { serveMcp } from "./mcp/mcp-server.ts";
import { routePreview } from "./previews/preview-gateway.ts";
import { parsePreviewLink } from "./previews/preview-link.ts";
import { listComputers } from "./registry/list-computers.ts";

function requireAdmin(principal: Principal): void {
  if (principal.kind !== "admin") throw new ApiError("EFORBIDDEN", "this route needs the admin token");
}

async function serve(request: Request, env: Env, url: URL): Promise<Response> {
  if (url.pathname === "/healthz") {
    parseRoute(request.method, url);
    return new Response("ok", { headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  // computerd's dial-back and blob uploads authenticate with its per-daemon secret, checked by the DO.
  const link = parseLinkPath(url.pathname);
  if (link !== undefined) return env.COMPUTER.getByName(link.id).fetch(request);
  // The web console's files are public; it signs in against the API itself.
  if (isConsolePath(url.pathname)) return serveConsole(request, url);
  // Public artifact links carry their own signature instead of a bearer token.
  const artifactLink = parseSignedUrl(url.pathname);
  if (artifactLink !== undefined) return serveArtifactLink(request, env, artifactLink);
  // So do preview URLs (a token preview checks its bearer token itself).
  const previewLink = parsePreviewLink(url);
  if (previewLink !== undefined) return routePreview(request, env, previewLink);
  const principal = await authenticate(request, env.COMPUTER_ADMIN_TOKEN, Date.now());
  const route: Route = parseRoute(request.method, url);
  switch (route.kind) {
    case "health":
    case "health.head":
      return new Response("ok");
    case "openapi":
      return Response.json(OPENAPI);
    case "computers.list":
      requireAdmin(principal);
      return listComputers(env, route.after, route.limit);
    case "artifacts.list":
      return listArtifacts(env, principal, route);
    case "artifacts.get":
      return getArtifact(env, principal, route.name, request, route.ttlSeconds);
    case "mcp":
    case "mcp.get":
    case "mcp.delete":
      if (principal.kind === "token" && principal.computer !== route.id) {
        throw new ApiError("EFORBIDDEN", "this token is for another computer");
      }
      return serveMcp(request, env, route.id, principal, (inner) => handleRequest(inner, env));
    case "computer":
      if (principal.kind === "token" && principal.computer !== route.id) {
        throw new ApiError("EFORBIDDEN", "this token is for another computer");
      }
      // A WebSocket, and a file's upload or download, go as the DO's own request (by-fetch.ts);
      // its fetch authenticates again.
      if (routedByFetch(route.route, request)) return env.COMPUTER.getByName(route.id).fetch(request);
      return env.COMPUTER.getByName(route.id).handle(request, {
        id: route.id,
        route: route.route,
        principal,
      });
    default:
      return route satisfies never;
  }
}

/** Handles one HTTP request to the API. */
export async function handleRequest(request: Request, env: Env): Promise<Response> {
  try {
    return await serve(request, env, new URL(request.url));
  } catch (err) {
    return toErrorResponse(err);
  }
}
