/**
 * Serving public artifact links (`/a/<name>/<version>/<token>/<path>`) without a bearer token:
 * verify the signature and expiry (403 otherwise), then answer from the manifest and R2 —
 * files streamed with their content type, ETag and Range support; a directory shows its
 * index.html or a generated index; `?manifest` returns the manifest as JSON.
 */
import type { Env } from "../env.ts";
import { ApiError } from "../http/errors.ts";
import { parseRange } from "../http/range.ts";
import { entriesUnder, indexPage } from "./index-page.ts";
import { fileKey, type Manifest, type ManifestFile, readManifest } from "./manifest.ts";
import { type SignedUrlClaims, type SignedUrlRequest, urlSigningKey, verifySignedUrl } from "./signed-url.ts";

/**
 * Published content is untrusted and shares the API's origin: a sandboxing CSP gives pages an
 * opaque origin (scripts run, but reach no storage of the API's origin), and no Referer leaks
 * the signed URL to other sites.
 */
function baseHeaders(claims: SignedUrlClaims, nowMs: number): Headers {
  const remaining = Math.max(0, claims.expires - Math.floor(nowMs / 1000));
  return new Headers({
    "Content-Security-Policy": "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": `private, max-age=${Math.min(remaining, 3600)}`,
  });
}

function redirect(location: string, headers: Headers): Response {
  headers.set("Location", location);
  return new Response(null, { status: 301, headers });
}

async function serveFile(
  request: Request,
  env: Env,
  manifest: Manifest,
  file: ManifestFile,
  headers: Headers,
): Promise<Response> {
  const etag = `"${file.sha256}"`;
  headers.set("Content-Type", file.contentType);
  headers.set("ETag", etag);
  headers.set("Accept-Ranges", "bytes");
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch?.split(",").some((t) => t.trim() === etag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  const ifRange = request.headers.get("if-range");
  const range = parseRange(
    ifRange === null || ifRange === etag ? request.headers.get("range") : null,
    file.size,
  );
  if (range.kind === "unsatisfiable") {
    throw new ApiError("ERANGE", `range not satisfiable for ${file.size} bytes`, {
      headers: { "Content-Range": `bytes */${file.size}` },
    });
  }
  const length = range.kind === "range" ? range.end - range.start + 1 : file.size;
  headers.set("Content-Length", String(length));
  const status = range.kind === "range" ? 206 : 200;
  if (range.kind === "range") headers.set("Content-Range", `bytes ${range.start}-${range.end}/${file.size}`);
  if (request.method === "HEAD" || file.size === 0) return new Response(null, { status, headers });
  const key = fileKey(manifest.name, manifest.version, file.path);
  const object = await env.ARTIFACTS.get(
    key,
    range.kind === "range" ? { range: { offset: range.start, length } } : {},
  );
  if (object === null) throw new ApiError("ENOENT", "artifact file missing from the bucket");
  return new Response(object.body, { status, headers });
}

function serveIndex(request: Request, manifest: Manifest, dir: string, headers: Headers): Response {
  const entries = entriesUnder(manifest, dir);
  if (entries.length === 0) throw new ApiError("ENOENT", "no such file in the artifact");
  headers.set("Content-Type", "text/html; charset=utf-8");
  const body = request.method === "HEAD" ? null : indexPage(manifest, dir, entries);
  return new Response(body, { headers });
}

/** The manifest as the public sees it (without the computer and workspace path it came from). */
function publicManifest(manifest: Manifest): object {
  const { name, version, type, createdAt, files, bytes } = manifest;
  return { name, version, type, createdAt, files, bytes };
}

/**
 * Answers a public link request. 403 EFORBIDDEN for a bad or expired link, 404 ENOENT for an
 * unknown version or path, 405 for methods other than GET and HEAD.
 */
export async function serveArtifactLink(
  request: Request,
  env: Env,
  link: SignedUrlRequest,
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new ApiError("ENOTSUP", `method ${request.method} not allowed here`, {
      headers: { Allow: "GET, HEAD" },
    });
  }
  if (!env.COMPUTER_ADMIN_TOKEN) throw new ApiError("EFORBIDDEN", "artifact links are disabled");
  const now = Date.now();
  const claims = await verifySignedUrl(await urlSigningKey(env.COMPUTER_ADMIN_TOKEN), link, now);
  const manifest = await readManifest(env.ARTIFACTS, link.name, link.version);
  if (manifest === undefined) throw new ApiError("ENOENT", "no such artifact version");
  const headers = baseHeaders(claims, now);
  const url = new URL(request.url);
  if (url.searchParams.has("manifest") && claims.scope === "") {
    headers.set("Content-Type", "application/json");
    return new Response(JSON.stringify(publicManifest(manifest)), { headers });
  }
  const path = link.path;
  // Relative links resolve against the token segment only if the root URL ends with "/".
  if (path === "" && !url.pathname.endsWith("/")) return redirect(`${url.pathname}/`, headers);
  if (path === "" || path.endsWith("/")) {
    const only = manifest.files[0];
    if (path === "" && manifest.type === "file" && only !== undefined) {
      return redirect(`${url.pathname}${encodeURIComponent(only.path)}`, headers);
    }
    const index = manifest.files.find((f) => f.path === `${path}index.html`);
    if (index !== undefined) return serveFile(request, env, manifest, index, headers);
    return serveIndex(request, manifest, path, headers);
  }
  const file = manifest.files.find((f) => f.path === path);
  if (file !== undefined) return serveFile(request, env, manifest, file, headers);
  if (manifest.files.some((f) => f.path.startsWith(`${path}/`))) return redirect(`${url.pathname}/`, headers);
  throw new ApiError("ENOENT", "no such file in the artifact");
}
