/**
 * Reading JSON request bodies and typed fields out of them. Anything malformed is
 * 400 EINVAL; an over-long body is 413 EFBIG. Unknown fields are ignored.
 */
import { ApiError } from "./errors.ts";

/** A parsed JSON object body. */
export type JsonObject = Record<string, unknown>;

/** Largest JSON body accepted (file contents go through PUT /files, never JSON). */
export const MAX_JSON_BYTES = 1024 * 1024;

/** Reads `request`'s body as a JSON object; an empty body is `{}`. */
export async function readJsonObject(request: Request): Promise<JsonObject> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_JSON_BYTES) throw new ApiError("EFBIG", `JSON body larger than ${MAX_JSON_BYTES} bytes`);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_JSON_BYTES)
    throw new ApiError("EFBIG", `JSON body larger than ${MAX_JSON_BYTES} bytes`);
  if (bytes.byteLength === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError("EINVAL", "malformed JSON body");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("EINVAL", "the JSON body must be an object");
  }
  return value as JsonObject;
}

function wrongType(key: string, expected: string): never {
  throw new ApiError("EINVAL", `'${key}' must be ${expected}`);
}

/** A required string field. */
export function requireString(body: JsonObject, key: string): string {
  const value = body[key];
  if (typeof value !== "string") wrongType(key, "a string");
  return value;
}

/** An optional string field. */
export function optionalString(body: JsonObject, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") wrongType(key, "a string");
  return value;
}

/** An optional boolean field. */
export function optionalBoolean(body: JsonObject, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") wrongType(key, "a boolean");
  return value;
}

/** An optional integer field within [min, max]. */
export function optionalInteger(body: JsonObject, key: string, min: number, max: number): number | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    wrongType(key, `an integer from ${min} to ${max}`);
  }
  return value;
}

/** A required integer field within [min, max]. */
export function requireInteger(body: JsonObject, key: string, min: number, max: number): number {
  const value = optionalInteger(body, key, min, max);
  if (value === undefined) wrongType(key, `an integer from ${min} to ${max}`);
  return value;
}
