/**
 * The artifact routes of docs/API.md: `POST /v1/computers/:id/artifacts` (in the Computer DO)
 * publishes a workspace path; `GET /v1/artifacts` and `GET /v1/artifacts/:name` (in the
 * router) list the registry — everything for the admin, only its computer's for a token.
 */
import { WWW_AUTHENTICATE } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import type { ComputerContext } from "../computer/context.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../http/errors.ts";
import { optionalInteger, optionalString, readJsonObject, requireString } from "../http/json-body.ts";
import { parseBodyPath } from "../http/paths.ts";
import { REGISTRY_NAME } from "../registry/registry.ts";
import { mintLink, publish } from "./publish-version.ts";
import { DEFAULT_SIGNED_URL_TTL_SECONDS, MAX_SIGNED_URL_TTL_SECONDS } from "./signed-url.ts";

/** POST `{ path, name?, version?, ttlSeconds? }` → 201 the published artifact (publish-version.ts). */
export async function publishArtifact(host: ComputerContext, request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  host.requireComputer();
  const path = parseBodyPath(requireString(body, "path"));
  const name = optionalString(body, "name");
  const version = optionalString(body, "version");
  const ttlSeconds = optionalInteger(body, "ttlSeconds", 1, MAX_SIGNED_URL_TTL_SECONDS);
  host.noteOrigin(request);
  const published = await publish(host, path, {
    origin: new URL(request.url).origin,
    ...(name === undefined ? {} : { name }),
    ...(version === undefined ? {} : { version }),
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  });
  return Response.json(published, { status: 201 });
}

/**
 * The computer whose artifacts `principal` may see (undefined: all, the admin). A computer
 * token must still be current: a revoked one is 401 like on every other route.
 */
async function visibleComputer(env: Env, principal: Principal): Promise<string | undefined> {
  if (principal.kind === "admin") return undefined;
  const current = await env.COMPUTER.getByName(principal.computer).tokenCurrent(principal.nonce);
  if (!current) throw new ApiError("EUNAUTHORIZED", "token revoked", { headers: WWW_AUTHENTICATE });
  return principal.computer;
}

/** GET /v1/artifacts → `{ artifacts: [{ name, computer, latest, versions, updatedAt }], next? }`. */
export async function listArtifacts(
  env: Env,
  principal: Principal,
  page: { after: string | undefined; limit: number },
): Promise<Response> {
  const computer = await visibleComputer(env, principal);
  const registry = env.REGISTRY.getByName(REGISTRY_NAME);
  const rows = await registry.listArtifacts(computer, page.after, page.limit + 1);
  const artifacts = rows.slice(0, page.limit);
  const last = artifacts.at(-1);
  return Response.json(
    rows.length > page.limit && last !== undefined ? { artifacts, next: last.name } : { artifacts },
  );
}

/**
 * GET /v1/artifacts/:name → `{ name, computer, versions: [{ version, createdAt, type, files,
 * bytes, entry, url, expiresAt }] }`, newest first, each with a freshly signed link (`ttlSeconds`
 * query parameter, default 7 days). 404 for a name that is not published or not the caller's.
 */
export async function getArtifact(
  env: Env,
  principal: Principal,
  name: string,
  request: Request,
  ttlSeconds: number | undefined,
): Promise<Response> {
  const computer = await visibleComputer(env, principal);
  const found = await env.REGISTRY.getByName(REGISTRY_NAME).artifactVersions(name);
  if (found === null || (computer !== undefined && found.computer !== computer)) {
    throw new ApiError("ENOENT", `no artifact named '${name}'`);
  }
  const origin = new URL(request.url).origin;
  const now = Date.now();
  const versions = await Promise.all(
    found.versions.map(async (v) => ({
      ...v,
      ...(await mintLink(
        env.COMPUTER_ADMIN_TOKEN,
        origin,
        name,
        v.version,
        v.entry,
        ttlSeconds ?? DEFAULT_SIGNED_URL_TTL_SECONDS,
        now,
      )),
    })),
  );
  return Response.json({ name, computer: found.computer, versions });
}
