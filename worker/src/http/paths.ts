/**
 * Workspace path validation. URL paths arrive percent-encoded and are decoded one segment at
 * a time; JSON body paths arrive decoded. Both end as an absolute vfs path ("/a/b", root "/").
 */
import { byteLength, NAME_MAX, PATH_MAX } from "@computer/vfs";
import { ApiError } from "./errors.ts";

/**
 * Longest path a request may name, in UTF-8 bytes (decoded): a request size limit, sized so
 * the whole URL stays under Cloudflare's 16 KB. It is not a depth limit: files lie deeper
 * (made by the runtimes) and are listed, found and removed through their ancestors.
 */
export const MAX_PATH_BYTES = 12 * 1024;

function invalid(message: string, path: string): never {
  throw new ApiError("EINVAL", message, { path });
}

/** Checks one decoded segment: no `.`/`..`, no slash, backslash or NUL, at most NAME_MAX bytes. */
function checkSegment(segment: string, shown: string): void {
  if (segment === "") invalid("empty path segment", shown);
  if (segment === "." || segment === "..") invalid("'.' and '..' segments are not allowed", shown);
  if (segment.includes("/")) invalid("encoded '/' inside a path segment", shown);
  if (segment.includes("\\")) invalid("backslash in path", shown);
  if (segment.includes("\0")) invalid("NUL byte in path", shown);
  if (byteLength(segment) > NAME_MAX) {
    throw new ApiError("ENAMETOOLONG", `name longer than ${NAME_MAX} bytes`, { path: shown });
  }
}

function join(segments: readonly string[], shown: string): string {
  const path = `/${segments.join("/")}`;
  if (byteLength(path) > MAX_PATH_BYTES) {
    throw new ApiError("ENAMETOOLONG", `path longer than ${MAX_PATH_BYTES} bytes`, { path: shown });
  }
  return path;
}

/**
 * Decodes the still-encoded part of a URL after `/files/` into an absolute vfs path.
 * An empty string is the root. One trailing slash is tolerated (`dir/`); any other empty
 * segment, a `.`/`..` segment (also `%2e%2e`), `%2f` inside a segment, `%00`, a backslash or
 * malformed percent-encoding is EINVAL; over-long names or paths are ENAMETOOLONG.
 */
export function parseUrlPath(encoded: string): string {
  const trimmed = encoded.endsWith("/") ? encoded.slice(0, -1) : encoded;
  if (trimmed === "") return "/";
  const segments = trimmed.split("/").map((raw) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return invalid("malformed percent-encoding in path", encoded);
    }
    checkSegment(decoded, encoded);
    return decoded;
  });
  return join(segments, encoded);
}

/**
 * Validates a path from a JSON body ("a/b" or "/a/b", both relative to the workspace root)
 * into an absolute vfs path, with the same rules as URL paths minus the decoding.
 */
export function parseBodyPath(value: string): string {
  const relative = value.startsWith("/") ? value.slice(1) : value;
  const trimmed = relative.endsWith("/") ? relative.slice(0, -1) : relative;
  if (trimmed === "") return "/";
  const segments = trimmed.split("/");
  for (const segment of segments) checkSegment(segment, value);
  return join(segments, value);
}

/** Validates a symlink target: any non-empty text without NUL, at most PATH_MAX bytes (symlink(2)). */
export function parseSymlinkTarget(value: string): string {
  if (value === "") invalid("empty symlink target", value);
  if (value.includes("\0")) invalid("NUL byte in symlink target", value);
  if (byteLength(value) > PATH_MAX) {
    throw new ApiError("ENAMETOOLONG", `symlink target longer than ${PATH_MAX} bytes`);
  }
  return value;
}
