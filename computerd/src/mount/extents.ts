/**
 * Byte ranges written into a page, kept as a flat sorted list of merged
 * half-open [start, end) pairs: [s0, e0, s1, e1, ...]. Sequential writes keep
 * it at one pair, so every operation is O(pairs) and usually O(1).
 */

/** Adds [start, end) to `ranges`, merging overlapping and touching pairs. */
export function addRange(ranges: number[], start: number, end: number): void {
  if (end <= start) return;
  const last = ranges.length - 1;
  // Fast path: appending at or after the last pair (sequential writes).
  if (last < 0 || start > (ranges[last] as number)) {
    ranges.push(start, end);
    return;
  }
  if (start >= (ranges[last - 1] as number)) {
    ranges[last] = Math.max(ranges[last] as number, end);
    return;
  }
  const merged: number[] = [];
  let s = start;
  let e = end;
  let placed = false;
  for (let i = 0; i < ranges.length; i += 2) {
    const rs = ranges[i] as number;
    const re = ranges[i + 1] as number;
    if (re < s) {
      merged.push(rs, re);
    } else if (rs > e) {
      if (!placed) {
        merged.push(s, e);
        placed = true;
      }
      merged.push(rs, re);
    } else {
      s = Math.min(s, rs);
      e = Math.max(e, re);
    }
  }
  if (!placed) merged.push(s, e);
  ranges.length = 0;
  ranges.push(...merged);
}

/** True when [start, end) lies inside one pair of `ranges` (an empty range is always covered). */
export function covers(ranges: number[], start: number, end: number): boolean {
  if (end <= start) return true;
  for (let i = 0; i < ranges.length; i += 2) {
    if ((ranges[i] as number) <= start && (ranges[i + 1] as number) >= end) return true;
  }
  return false;
}

/** Drops everything at or after `cut`. */
export function cutRanges(ranges: number[], cut: number): void {
  const kept: number[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    const rs = ranges[i] as number;
    const re = ranges[i + 1] as number;
    if (rs >= cut) break;
    kept.push(rs, Math.min(re, cut));
  }
  ranges.length = 0;
  ranges.push(...kept);
}

/** Calls `fn` for each gap of `ranges` inside [start, end). */
export function forEachGap(
  ranges: number[],
  start: number,
  end: number,
  fn: (from: number, to: number) => void,
): void {
  let pos = start;
  for (let i = 0; i < ranges.length && pos < end; i += 2) {
    const rs = ranges[i] as number;
    const re = ranges[i + 1] as number;
    if (re <= pos) continue;
    if (rs > pos) fn(pos, Math.min(rs, end));
    pos = Math.max(pos, re);
  }
  if (pos < end) fn(pos, end);
}
