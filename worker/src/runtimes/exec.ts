/**
 * The exec routes (`/v1/computers/:id/exec...`). No runtime is wired in yet: a valid request
 * is answered 503 EUNAVAILABLE, so clients see "not available" rather than a bad request.
 * Runtimes (container, shell, js) plug in here.
 */
import { ApiError } from "../http/errors.ts";
import { optionalInteger, readJsonObject, requireString } from "../http/json-body.ts";

/** The runtimes of docs/API.md. */
export type RuntimeName = "container" | "shell" | "js";

const RUNTIMES: readonly RuntimeName[] = ["container", "shell", "js"];

function isRuntime(value: string): value is RuntimeName {
  return (RUNTIMES as readonly string[]).includes(value);
}

/** POST /exec: validates the request, then 503 EUNAVAILABLE (no runtime available yet). */
export async function startExec(request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  const runtime = requireString(body, "runtime");
  if (!isRuntime(runtime)) throw new ApiError("EINVAL", `'runtime' must be one of ${RUNTIMES.join(", ")}`);
  requireString(body, "source");
  optionalInteger(body, "timeoutMs", 1, 24 * 3600 * 1000);
  throw new ApiError("EUNAVAILABLE", `runtime ${runtime} not available`);
}

/** GET /exec: the recent execs (none until a runtime exists). */
export function listExecs(): Response {
  return Response.json({ execs: [] });
}

/** GET or DELETE /exec/:execId: no exec has ever run, so every id is unknown. */
export function unknownExec(execId: string): never {
  throw new ApiError("ENOENT", `no exec '${execId}'`);
}
