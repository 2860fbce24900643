/**
 * `Range: bytes=...` parsing for file downloads (RFC 9110 §14). One range only: a header
 * we cannot or will not honour (syntax error, several ranges) is ignored, as the RFC allows.
 */

/** What a Range header asks of a representation of `size` bytes. */
export type RangeRequest =
  | { kind: "none" }
  | { kind: "range"; start: number; end: number }
  | { kind: "unsatisfiable" };

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;

/**
 * Parses `header` against a body of `size` bytes. `end` is inclusive and clamped to the last
 * byte; a suffix range `-n` means the last n bytes. A start at or past the end (or any range of
 * an empty body) is unsatisfiable (416).
 */
export function parseRange(header: string | null, size: number): RangeRequest {
  if (header === null) return { kind: "none" };
  const match = SINGLE_RANGE.exec(header.trim().replace(/\s+/g, ""));
  if (match === null) return { kind: "none" };
  const first = match[1] ?? "";
  const last = match[2] ?? "";
  if (first === "" && last === "") return { kind: "none" };
  if (first === "") {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return { kind: "none" };
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return { kind: "none" };
  let end = size - 1;
  if (last !== "") {
    const requested = Number(last);
    if (!Number.isSafeInteger(requested)) return { kind: "none" };
    if (requested < start) return { kind: "none" };
    end = Math.min(requested, size - 1);
  }
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "range", start, end };
}
