/**
 * The trusted `computer:git` and `computer:artifacts` modules of the js runtime: each function
 * is a call to the DO's services (GuestServicesApi), whose failures come back as errors with
 * their `code` (EACCES for egress, ENOENT, ...).
 */
import {
  ARTIFACT_FUNCTIONS,
  GIT_FUNCTIONS,
  type GuestCallResult,
  type GuestServicesApi,
} from "../guest-hosting/guest-wire.ts";

type Api<Names extends readonly string[]> = Record<Names[number], (options?: unknown) => Promise<unknown>>;

/** An error from a service, with its code. */
export interface ServiceError extends Error {
  code: string;
}

function unwrap(result: GuestCallResult): unknown {
  if (result.ok) return result.value;
  const err = new Error(result.error.message) as ServiceError;
  err.code = result.error.code;
  throw err;
}

function api<Names extends readonly string[]>(
  names: Names,
  call: (name: string, options: unknown) => Promise<GuestCallResult>,
): Api<Names> {
  const out: Record<string, (options?: unknown) => Promise<unknown>> = {};
  for (const name of names) out[name] = async (options?: unknown) => unwrap(await call(name, options ?? {}));
  return out as Api<Names>;
}

/** `computer:git` over `services`. */
export function gitModule(services: GuestServicesApi): Api<typeof GIT_FUNCTIONS> {
  return api(GIT_FUNCTIONS, (name, options) => services.git(name, options));
}

/** `computer:artifacts` over `services`. */
export function artifactsModule(services: GuestServicesApi): Api<typeof ARTIFACT_FUNCTIONS> {
  return api(ARTIFACT_FUNCTIONS, (name, options) => services.artifacts(name, options));
}
