/**
 * The artifact routes (publish from a workspace, registry listing). Publishing to the
 * ARTIFACTS bucket is not wired in yet: valid requests are answered 503 EUNAVAILABLE.
 */
import { ApiError } from "../http/errors.ts";
import { readJsonObject, requireString } from "../http/json-body.ts";

/** POST /v1/computers/:id/artifacts: validates `{ path }`, then 503 EUNAVAILABLE. */
export async function publishArtifact(request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  requireString(body, "path");
  throw new ApiError("EUNAVAILABLE", "artifacts not available");
}

/** GET /v1/artifacts and /v1/artifacts/:name: 503 EUNAVAILABLE. */
export function artifactRegistry(): never {
  throw new ApiError("EUNAVAILABLE", "artifacts not available");
}
