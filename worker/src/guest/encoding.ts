/**
 * Byte/text conversions of the guests: Node's buffer encodings (utf8, latin1/binary, ascii,
 * base64, hex) over Uint8Array, without node:buffer.
 */

/** The encodings the guests accept. */
export type TextEncodingName = "utf8" | "utf-8" | "ascii" | "binary" | "latin1" | "base64" | "hex";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** True for an encoding name the guests know. */
export function isEncoding(value: unknown): value is TextEncodingName {
  return (
    value === "utf8" ||
    value === "utf-8" ||
    value === "ascii" ||
    value === "binary" ||
    value === "latin1" ||
    value === "base64" ||
    value === "hex"
  );
}

/** A latin1 string (one char per byte) of `bytes`. */
export function bytesToLatin1(bytes: Uint8Array): string {
  let out = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    out += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return out;
}

/** The bytes of a latin1 string (each char's low byte). */
export function latin1ToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** Decodes `bytes` as `encoding`. */
export function decodeBytes(bytes: Uint8Array, encoding: TextEncodingName = "utf8"): string {
  switch (encoding) {
    case "utf8":
    case "utf-8":
      return decoder.decode(bytes);
    case "binary":
    case "latin1":
      return bytesToLatin1(bytes);
    case "ascii":
      return bytesToLatin1(bytes.map((b) => b & 0x7f));
    case "base64":
      return btoa(bytesToLatin1(bytes));
    case "hex":
      return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    default:
      return encoding satisfies never;
  }
}

/** Encodes `text` as `encoding` (base64/hex are decoded into their bytes, as Node does). */
export function encodeText(text: string, encoding: TextEncodingName = "utf8"): Uint8Array {
  switch (encoding) {
    case "utf8":
    case "utf-8":
      return encoder.encode(text);
    case "binary":
    case "latin1":
    case "ascii":
      return latin1ToBytes(text);
    case "base64":
      return latin1ToBytes(atob(text.replace(/[^A-Za-z0-9+/]/g, "")));
    case "hex": {
      const clean = text.length % 2 === 0 ? text : text.slice(0, -1);
      const out = new Uint8Array(clean.length / 2);
      for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16) || 0;
      return out;
    }
    default:
      return encoding satisfies never;
  }
}
