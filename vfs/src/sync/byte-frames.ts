/**
 * The dial-back link's binary frames: a capnweb message (its JSON-compatible tree, with bytes
 * left as Uint8Array: capnweb's "jsonCompatibleWithBytes" level) as one binary WebSocket
 * message, the bytes beside the JSON instead of base64 inside it.
 *
 *   u32 LE   header length H
 *   H bytes  UTF-8 JSON {"n": nonce, "l": [length of each byte string], "m": message tree}
 *   then     the byte strings, back to back
 *
 * In the tree each Uint8Array is replaced by the string `"\u0000" + nonce + ":" + index`; the
 * nonce is random per frame, so no string of the message itself is taken for a marker. The
 * receiver's byte strings are views of the frame (no copy). A message without bytes goes as
 * JSON text (encodeMessage). The text form (a legacy peer, see
 * wire-transport.ts) is capnweb's own: the tree as JSON, bytes as base64 without padding.
 */

const MARK = "\u0000";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function malformed(detail: string): TypeError {
  return new TypeError(`malformed binary frame: ${detail}`);
}

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Replaces every Uint8Array under `node` by `replace(bytes)`, in place. capnweb builds a fresh
 * tree for each message, so only its own arrays and objects change; the bytes are untouched.
 */
function replaceBytes(node: unknown, replace: (bytes: Uint8Array) => unknown): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const value = node[i];
      if (value instanceof Uint8Array) node[i] = replace(value);
      else if (typeof value === "object" && value !== null) replaceBytes(value, replace);
    }
  } else if (typeof node === "object" && node !== null) {
    const object = node as Record<string, unknown>;
    for (const key in object) {
      const value = object[key];
      if (value instanceof Uint8Array) object[key] = replace(value);
      else if (typeof value === "object" && value !== null) replaceBytes(value, replace);
    }
  }
}

/** Replaces every marker string under `node` (arrays and objects) by `bytes(index)`, in place. */
function restoreBytes(node: unknown, prefix: string, bytes: (index: number) => Uint8Array): void {
  const restored = (value: unknown): unknown => {
    if (typeof value === "string") {
      return value.charCodeAt(0) === 0 && value.startsWith(prefix)
        ? bytes(Number(value.slice(prefix.length)))
        : value;
    }
    if (typeof value === "object" && value !== null) restoreBytes(value, prefix, bytes);
    return value;
  };
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) node[i] = restored(node[i]);
  } else if (typeof node === "object" && node !== null) {
    const object = node as Record<string, unknown>;
    for (const key in object) object[key] = restored(object[key]);
  }
}

/**
 * One capnweb message as the pieces of a binary frame when it holds bytes: the length and the
 * header first, then each byte string as it is (no copy), else as JSON text (`frame`: as a frame
 * anyway). A message without bytes needs no nonce, no UTF-8 copy of its own and no frame; the
 * WebSocket sends its text as it is. A sender that can send one message in pieces (WebSocket
 * fragments) sends these; joined, they are the frame (encodeMessage).
 */
export function encodeParts(message: unknown, frame = false): string | Uint8Array[] {
  let nonce: string | undefined;
  let prefix = "";
  const blobs: Uint8Array[] = [];
  const holder = [message];
  replaceBytes(holder, (bytes) => {
    if (nonce === undefined) {
      nonce = randomNonce();
      prefix = `${MARK}${nonce}:`;
    }
    return `${prefix}${blobs.push(bytes) - 1}`;
  });
  if (blobs.length === 0 && !frame) return JSON.stringify(holder[0]);
  const header = encoder.encode(
    JSON.stringify({ n: nonce ?? "", l: blobs.map((b) => b.byteLength), m: holder[0] }),
  );
  const head = new Uint8Array(4 + header.byteLength);
  new DataView(head.buffer).setUint32(0, header.byteLength, true);
  head.set(header, 4);
  return [head, ...blobs];
}

/**
 * One capnweb message as a binary frame when it holds bytes (each copied once, into the frame),
 * else as JSON text (`frame`: as a frame anyway): encodeParts, joined.
 */
export function encodeMessage(message: unknown, frame = false): string | Uint8Array {
  const parts = encodeParts(message, frame);
  if (typeof parts === "string") return parts;
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** One capnweb message as a binary frame, whether or not it holds bytes. */
export function encodeFrame(message: unknown): Uint8Array {
  return encodeMessage(message, true) as Uint8Array;
}

/** The message of a binary frame; its byte strings are views of `frame`. Throws on a malformed frame. */
export function decodeFrame(frame: ArrayBuffer): unknown {
  if (frame.byteLength < 4) throw malformed("shorter than its header length");
  const headerLength = new DataView(frame).getUint32(0, true);
  if (4 + headerLength > frame.byteLength) throw malformed("header past the end");
  let header: { n?: unknown; l?: unknown; m?: unknown };
  try {
    // A copy of the header: workerd's TextDecoder took ~40 ms to decode a small view of an
    // 8 MiB frame (it looked at the whole buffer), a copy of the view's own bytes takes nothing.
    header = JSON.parse(decoder.decode(new Uint8Array(frame.slice(4, 4 + headerLength))));
  } catch {
    throw malformed("header is not JSON");
  }
  const { n: nonce, l: lengths } = header;
  if (typeof nonce !== "string" || !Array.isArray(lengths)) throw malformed("no nonce or lengths");
  const views: Uint8Array[] = [];
  let offset = 4 + headerLength;
  for (const length of lengths) {
    if (!Number.isSafeInteger(length) || length < 0 || offset + length > frame.byteLength)
      throw malformed("a byte string past the end");
    views.push(new Uint8Array(frame, offset, length));
    offset += length;
  }
  if (offset !== frame.byteLength) throw malformed("bytes after the last byte string");
  const holder = [header.m];
  if (views.length > 0) {
    restoreBytes(holder, `${MARK}${nonce}:`, (index) => {
      const view = views[index];
      if (view === undefined) throw malformed(`no byte string ${index}`);
      return view;
    });
  }
  return holder[0];
}

/** base64 without padding, as capnweb writes bytes into JSON. */
function base64(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?(options: { omitPadding: boolean }): string }).toBase64;
  if (native) return native.call(bytes, { omitPadding: true });
  if (typeof Buffer !== "undefined") {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString("base64")
      .replace(/=+$/, "");
  }
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/=+$/, "");
}

/** One capnweb message as capnweb's own text form (for a peer that does not take frames). */
export function encodeText(message: unknown): string {
  const holder = [message];
  replaceBytes(holder, base64);
  return JSON.stringify(holder[0]);
}
