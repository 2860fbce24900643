/**
 * Artifact names and versions: what is allowed, the name derived from a published path when
 * none is given, and the default version (the next integer of that name, assigned by the
 * registry). Both appear in R2 keys and URL paths, so neither may contain `/` or `@`.
 */
import { ApiError } from "../http/errors.ts";

/** An artifact name: lower-case, `[a-z0-9][a-z0-9._-]{0,63}`. */
export const ARTIFACT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** A version: `[A-Za-z0-9][A-Za-z0-9._+-]{0,63}` (`3`, `1.2.0`, `2024-05-01`, `1.0.0-rc.1+build`). */
export const ARTIFACT_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/** Throws 400 EINVAL unless `name` is a valid artifact name. */
export function checkArtifactName(name: string): string {
  if (!ARTIFACT_NAME.test(name)) {
    throw new ApiError("EINVAL", `invalid artifact name: must match ${ARTIFACT_NAME.source}`);
  }
  return name;
}

/** Throws 400 EINVAL unless `version` is a valid version. */
export function checkArtifactVersion(version: string): string {
  if (!ARTIFACT_VERSION.test(version)) {
    throw new ApiError("EINVAL", `invalid artifact version: must match ${ARTIFACT_VERSION.source}`);
  }
  return version;
}

/**
 * The name published `path` (a vfs path) gets by default: its last segment, lower-cased,
 * with runs of other characters turned into `-`. 400 EINVAL when nothing usable is left
 * (the workspace root, a name of only symbols): the caller must then pass `name`.
 */
export function defaultArtifactName(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 64);
  if (!ARTIFACT_NAME.test(name)) {
    throw new ApiError("EINVAL", `cannot derive an artifact name from '${path}': pass 'name'`);
  }
  return name;
}
