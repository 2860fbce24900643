/**
 * The preview routes of one computer (docs/API.md "Previews"): `POST /ports` opens a preview
 * of a port inside the container and answers its signed URL, `GET /ports` lists the open
 * ones (with freshly built URLs), `DELETE /ports/:port` closes one, and every URL of it.
 */
import type { ComputerContext } from "../computer/context.ts";
import { ApiError } from "../http/errors.ts";
import { optionalInteger, optionalString, readJsonObject } from "../http/json-body.ts";
import {
  isPort,
  newPreviewId,
  type PreviewAccess,
  type PreviewClaims,
  previewKey,
  previewUrl,
} from "./preview-link.ts";
import type { PreviewRecord } from "./preview-store.ts";

/** Lifetime of a preview when the request names none: one day. */
export const DEFAULT_PREVIEW_TTL_SECONDS = 24 * 3600;
/** Longest lifetime of a preview: 30 days. */
export const MAX_PREVIEW_TTL_SECONDS = 30 * 24 * 3600;

/** A preview as the API shows it. */
export interface PreviewJson {
  port: number;
  url: string;
  access: PreviewAccess;
  createdAt: string;
  expiresAt: string;
}

async function previewJson(
  host: ComputerContext,
  origin: string,
  preview: PreviewRecord,
): Promise<PreviewJson> {
  const claims: PreviewClaims = {
    computer: host.computerId(),
    port: preview.port,
    id: preview.id,
    expires: Math.floor(preview.expiresMs / 1000),
  };
  return {
    port: preview.port,
    url: await previewUrl(await previewKey(host.env.COMPUTER_ADMIN_TOKEN), origin, claims),
    access: preview.access,
    createdAt: new Date(preview.createdMs).toISOString(),
    expiresAt: new Date(preview.expiresMs).toISOString(),
  };
}

function parseAccess(value: string | undefined): PreviewAccess {
  if (value === undefined || value === "public" || value === "token") return value ?? "public";
  throw new ApiError("EINVAL", `'access' must be "public" or "token"`);
}

/**
 * POST: `{ port, ttlSeconds?, access? }` → 201 with the new preview. A port that already has
 * an open preview with the same access answers it unchanged (200, the same URL); with the
 * other access, 409 EEXIST (close it first).
 */
export async function openPreview(host: ComputerContext, request: Request): Promise<Response> {
  host.requireComputer();
  const body = await readJsonObject(request);
  if (!isPort(body.port)) throw new ApiError("EINVAL", "'port' must be an integer from 1 to 65535");
  const { port } = body;
  const ttlSeconds =
    optionalInteger(body, "ttlSeconds", 1, MAX_PREVIEW_TTL_SECONDS) ?? DEFAULT_PREVIEW_TTL_SECONDS;
  const access = parseAccess(optionalString(body, "access"));
  const origin = new URL(request.url).origin;
  const now = Date.now();
  const open = host.previews.get(port, now);
  if (open !== undefined) {
    if (open.access !== access) {
      throw new ApiError("EEXIST", `port ${port} already has a ${open.access} preview: close it first`);
    }
    return Response.json(await previewJson(host, origin, open), { status: 200 });
  }
  const preview: PreviewRecord = {
    port,
    id: newPreviewId(access),
    access,
    createdMs: now,
    // Whole seconds, so the expiry in the URL is the stored one.
    expiresMs: (Math.floor(now / 1000) + ttlSeconds) * 1000,
  };
  host.previews.put(preview);
  return Response.json(await previewJson(host, origin, preview), { status: 201 });
}

/** GET: `{ previews: [...] }`, by port. */
export async function listPreviews(host: ComputerContext, request: Request): Promise<Response> {
  host.requireComputer();
  const origin = new URL(request.url).origin;
  const previews = await Promise.all(
    host.previews.list(Date.now()).map((preview) => previewJson(host, origin, preview)),
  );
  return Response.json({ previews });
}

/** DELETE: closes the preview of `port` → 204; 404 ENOENT when none is open. */
export function closePreview(host: ComputerContext, port: number): Response {
  host.requireComputer();
  if (!host.previews.delete(port)) throw new ApiError("ENOENT", `no preview of port ${port}`);
  return new Response(null, { status: 204 });
}
