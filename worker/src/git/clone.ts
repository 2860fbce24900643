/**
 * `git clone` over http(s) (smart HTTP) with a fetch the caller chooses: the runtime passes
 * the fetch its egress policy allows, so a computer without egress cannot clone. The HTTP
 * client is isomorphic-git's `http/web` client with the fetch injected instead of the global.
 */

import { byteChunks } from "@computer/vfs";
import {
  type GitHttpRequest,
  type GitHttpResponse,
  clone as gitClone,
  type HttpClient,
} from "isomorphic-git";
import { GitError, type Repo, repoAt } from "./repo.ts";

/** The fetch signature git needs. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

async function collect(body: AsyncIterableIterator<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of body) {
    parts.push(part);
    size += part.byteLength;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

async function* chunks(body: ReadableStream<Uint8Array> | null): AsyncIterableIterator<Uint8Array> {
  if (body !== null) yield* byteChunks(body);
}

/** An isomorphic-git HttpClient over `fetch`. Request bodies are small (want/have lists) and sent whole. */
export function fetchHttpClient(fetch: FetchLike): HttpClient {
  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const body = request.body === undefined ? undefined : await collect(request.body);
      const res = await fetch(request.url, {
        method: request.method ?? "GET",
        headers: request.headers ?? {},
        ...(body === undefined ? {} : { body }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return {
        url: res.url || request.url,
        method: request.method ?? "GET",
        statusCode: res.status,
        statusMessage: res.statusText,
        body: chunks(res.body),
        headers,
      };
    },
  };
}

/** Arguments of `clone`. */
export interface CloneOptions {
  url: string;
  /** The fetch to reach the remote with (the runtime's egress-checked fetch). */
  fetch: FetchLike;
  /** Branch or tag to check out (default: the remote's HEAD). */
  ref?: string;
  /** Shallow clone of this many commits. */
  depth?: number;
  /** Only fetch `ref` (or the default branch). */
  singleBranch?: boolean;
  /** Progress lines (`Receiving objects: 50%`), for stderr. */
  onMessage?: (line: string) => void;
}

/**
 * Clones `url` into `dir` (created if missing; must be empty). Only http: and https: URLs.
 * Network failures and HTTP errors become GitError with git's wording.
 */
export async function clone(fs: Repo["raw"], dir: string, options: CloneOptions): Promise<Repo> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new GitError(`repository '${options.url}' does not exist`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GitError(`unsupported protocol '${url.protocol.replace(/:$/, "")}': only http(s) remotes`);
  }
  const repo = repoAt(fs, dir);
  const existing = await repo.fs.promises.readdir(repo.dir).catch(() => undefined);
  if (existing !== undefined && existing.length > 0) {
    throw new GitError(`destination path '${repo.dir}' already exists and is not an empty directory.`);
  }
  await repo.fs.promises.mkdir(repo.dir, { recursive: true });
  try {
    await gitClone({
      fs: repo.fs,
      http: fetchHttpClient(options.fetch),
      dir: repo.dir,
      gitdir: repo.gitdir,
      cache: repo.cache,
      url: url.href,
      ...(options.ref === undefined ? {} : { ref: options.ref }),
      ...(options.depth === undefined ? {} : { depth: options.depth }),
      singleBranch: options.singleBranch ?? false,
      ...(options.onMessage === undefined ? {} : { onMessage: options.onMessage }),
    });
  } catch (err) {
    // Like git, leave no half-cloned tree behind (only what this clone created is removed).
    if (existing === undefined) await removeTree(fs, repo.dir).catch(() => undefined);
    else
      for (const name of await fs.readdir(repo.dir).catch(() => []))
        await removeTree(fs, `${repo.dir}/${name}`);
    const message = err instanceof Error ? err.message : String(err);
    throw new GitError(`unable to access '${options.url}': ${message}`);
  }
  return repo;
}

/** Removes `path` and everything under it (symlinks are removed, never followed). */
async function removeTree(fs: Repo["raw"], path: string): Promise<void> {
  const stat = await fs.lstat(path);
  if (stat.type !== "dir") return fs.unlink(path);
  for (const name of await fs.readdir(path)) await removeTree(fs, `${path}/${name}`);
  await fs.rmdir(path);
}
