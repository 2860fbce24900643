/**
 * The journal's output cap: how much of a piece of output still fits in an exec's budget of
 * UTF-8 bytes, cut on a character boundary so stored text never ends in half a character.
 */

const encoder = new TextEncoder();

/** UTF-8 length of `text`. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding is at most `budget` bytes, and its length
 * in bytes. A surrogate pair is kept or dropped whole.
 */
export function fitUtf8(text: string, budget: number): { text: string; bytes: number } {
  if (budget <= 0) return { text: "", bytes: 0 };
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.codePointAt(end) ?? 0;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > budget) break;
    bytes += size;
    end += code >= 0x10000 ? 2 : 1;
  }
  return { text: text.slice(0, end), bytes };
}

/** Tracks one exec's stored bytes against its cap. */
export class OutputBudget {
  readonly cap: number;
  #used = 0;
  #truncated = false;

  constructor(cap: number) {
    this.cap = cap;
  }

  /** True once some output did not fit. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** The part of `data` to store ("" when nothing fits any more); marks truncation. */
  take(data: string): string {
    const remaining = this.cap - this.#used;
    const size = utf8Length(data);
    if (size <= remaining) {
      this.#used += size;
      return data;
    }
    this.#truncated = true;
    const fit = fitUtf8(data, remaining);
    this.#used += fit.bytes;
    return fit.text;
  }
}
