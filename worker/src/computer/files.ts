/**
 * The `/files/<path>` routes: streamed upload, ranged download or directory listing,
 * stat as headers, and delete. Every vfs call is one atomic mutation or a read.
 */
import { isFsError, type Stat, type Vfs } from "@computer/vfs";
import { ApiError } from "../http/errors.ts";
import { formatMode } from "../http/mode.ts";
import { parseRange } from "../http/range.ts";
import type { ComputerContext } from "./context.ts";
import { entryJson, etag, httpDate, isoOf } from "./stat-json.ts";

function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

/** PUT: writes the body as the file at `path` (parents created) → 201 `{ path, size, mtime, mode }`. */
export async function putFile(
  host: ComputerContext,
  path: string,
  mode: number | undefined,
  request: Request,
): Promise<Response> {
  host.requireComputer();
  const vfs = host.vfs();
  const ifMatch = request.headers.get("if-match");
  let stat =
    ifMatch === null
      ? await vfs.writeStream(path, request.body ?? emptyBody(), { parents: true, mode })
      : writeIfMatch(vfs, path, ifMatch, await boundedBody(request, path), mode);
  // `mode` only applies to new files in the vfs; an explicit ?mode is honoured for existing ones too.
  if (mode !== undefined && stat.mode !== mode) {
    vfs.chmod(path, mode);
    stat = vfs.stat(path);
  }
  await host.touched();
  return Response.json(
    { path, size: stat.size, mtime: isoOf(stat.mtime), mode: formatMode(stat.mode) },
    { status: 201 },
  );
}

/** Largest body of a conditional PUT: it is held in memory so the check and the write are one step. */
const MAX_CONDITIONAL_BYTES = 64 * 1024 * 1024;

async function boundedBody(request: Request, path: string): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_CONDITIONAL_BYTES) {
    throw new ApiError("EFBIG", `a conditional write takes at most ${MAX_CONDITIONAL_BYTES} bytes`, { path });
  }
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > MAX_CONDITIONAL_BYTES) {
    throw new ApiError("EFBIG", `a conditional write takes at most ${MAX_CONDITIONAL_BYTES} bytes`, { path });
  }
  return bytes;
}

/**
 * The write of `If-Match: <etag>`: only if the file's current ETag is one of those listed (`*`:
 * it exists), else 410 ESTALE and nothing changes. The check and the write run in one
 * synchronous step of the Durable Object, so no other write (API, runtime, container sync) can
 * fall between them.
 */
function writeIfMatch(
  vfs: Vfs,
  path: string,
  ifMatch: string,
  bytes: Uint8Array,
  mode: number | undefined,
): Stat {
  let current: string | undefined;
  try {
    const existing = vfs.stat(path);
    if (existing.type === "file") current = etag(existing);
  } catch (err) {
    if (!isFsError(err) || err.code !== "ENOENT") throw err;
  }
  const wanted = ifMatch.split(",").map((t) => t.trim());
  const matches = current !== undefined && (wanted.includes("*") || wanted.includes(current));
  if (!matches) throw new ApiError("ESTALE", "the file changed since it was read (If-Match)", { path });
  return vfs.writeFile(path, bytes, { parents: true, mode });
}

/** GET: a file's bytes (Range, ETag, If-None-Match) or a directory listing. */
export function getFile(
  host: ComputerContext,
  path: string,
  page: { after: string | undefined; limit: number | undefined },
  request: Request,
): Response {
  host.requireComputer();
  const vfs = host.vfs();
  const stat = vfs.stat(path);
  if (stat.type === "dir") {
    const listing = vfs.readdir(path, { after: page.after, limit: page.limit });
    const entries = listing.entries.map(entryJson);
    return Response.json(listing.next === undefined ? { entries } : { entries, next: listing.next });
  }
  if (stat.type !== "file") throw new ApiError("EINVAL", `not a regular file (${stat.type})`, { path });
  const tag = etag(stat);
  const headers = new Headers({
    "Content-Type": "application/octet-stream",
    ETag: tag,
    "Last-Modified": httpDate(stat.mtime),
    "Accept-Ranges": "bytes",
    "X-File-Type": stat.type,
    "X-File-Mode": formatMode(stat.mode),
  });
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch?.split(",").some((t) => t.trim() === tag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  const ifRange = request.headers.get("if-range");
  const rangeHeader = ifRange === null || ifRange === tag ? request.headers.get("range") : null;
  const range = parseRange(rangeHeader, stat.size);
  switch (range.kind) {
    case "unsatisfiable":
      throw new ApiError("ERANGE", `range not satisfiable for ${stat.size} bytes`, {
        path,
        headers: { "Content-Range": `bytes */${stat.size}` },
      });
    case "range": {
      const length = range.end - range.start + 1;
      headers.set("Content-Length", String(length));
      headers.set("Content-Range", `bytes ${range.start}-${range.end}/${stat.size}`);
      return new Response(withLength(vfs.readStream(path, { offset: range.start, length }), length), {
        status: 206,
        headers,
      });
    }
    case "none":
      headers.set("Content-Length", String(stat.size));
      return new Response(stat.size === 0 ? null : withLength(vfs.readStream(path), stat.size), {
        status: 200,
        headers,
      });
    default:
      return range satisfies never;
  }
}

/**
 * Wraps a body in a FixedLengthStream: workerd only sends `Content-Length` (instead of
 * chunked encoding) for a streamed body whose length it knows this way.
 */
function withLength(body: ReadableStream<Uint8Array>, length: number): ReadableStream<Uint8Array> {
  const { readable, writable } = new FixedLengthStream(length);
  body.pipeTo(writable).catch(() => {
    // The client went away or the file shrank mid-read; the stream already errored for the reader.
  });
  return readable;
}

/** HEAD: stat as headers (`X-File-Type`, `Content-Length`, `X-File-Mode`, `Last-Modified`). */
export function headFile(host: ComputerContext, path: string): Response {
  host.requireComputer();
  const stat = host.vfs().stat(path);
  const headers = new Headers({
    "X-File-Type": stat.type,
    "X-File-Size": String(stat.size),
    "Content-Length": String(stat.size),
    "X-File-Mode": formatMode(stat.mode),
    "Last-Modified": httpDate(stat.mtime),
  });
  if (stat.type === "file") {
    headers.set("ETag", etag(stat));
    headers.set("Accept-Ranges", "bytes");
  }
  return new Response(null, { status: 200, headers });
}

/** DELETE: removes a file, symlink or empty directory; `recursive` removes a whole tree → 204. */
export async function deleteFile(host: ComputerContext, path: string, recursive: boolean): Promise<Response> {
  host.requireComputer();
  if (path === "/") throw new ApiError("EINVAL", "the workspace root cannot be deleted", { path });
  const vfs = host.vfs();
  if (recursive) vfs.rm(path, { recursive: true });
  else if (vfs.lstat(path).type === "dir") vfs.rmdir(path);
  else vfs.unlink(path);
  await host.touched();
  return new Response(null, { status: 204 });
}
