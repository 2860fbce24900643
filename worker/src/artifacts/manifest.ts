/**
 * The manifest of one published version and where things live in the ARTIFACTS bucket:
 * `<name>/<version>/manifest.json` and `<name>/<version>/files/<path>`. A version is served
 * only once its manifest exists, and only the files the manifest lists; versions are immutable,
 * so manifests are cached per isolate.
 */

/** One published file. */
export interface ManifestFile {
  /** Path inside the artifact (`index.html`, `img/a.png`); a file artifact has its base name. */
  path: string;
  size: number;
  /** Hex sha-256 of the content as uploaded. */
  sha256: string;
  contentType: string;
}

/** The manifest stored beside a version's files. */
export interface Manifest {
  name: string;
  version: string;
  /** The computer it was published from. */
  computer: string;
  /** The published workspace path ("/dist"). */
  source: string;
  /** `file`: one file published; `dir`: a directory tree. */
  type: "file" | "dir";
  createdAt: string;
  /** Files in path order. */
  files: ManifestFile[];
  /** Sum of the files' sizes. */
  bytes: number;
}

/** The key prefix of one version. */
export function versionPrefix(name: string, version: string): string {
  return `${name}/${version}/`;
}

/** The manifest's key. */
export function manifestKey(name: string, version: string): string {
  return `${versionPrefix(name, version)}manifest.json`;
}

/** A file's key. */
export function fileKey(name: string, version: string, path: string): string {
  return `${versionPrefix(name, version)}files/${path}`;
}

const CACHE_LIMIT = 256;
const cache = new Map<string, Manifest>();

/** The manifest of `name@version`, or undefined while it is not (completely) published. */
export async function readManifest(
  bucket: R2Bucket,
  name: string,
  version: string,
): Promise<Manifest | undefined> {
  const key = manifestKey(name, version);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const object = await bucket.get(key);
  if (object === null) return undefined;
  const manifest = (await object.json()) as Manifest;
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(key, manifest);
  return manifest;
}
