/**
 * The extended-attribute ops of POST /fs: getxattr, listxattr, setxattr, removexattr.
 * Values travel as base64; only the `user.` namespace may be written through the API
 * (the others belong to the kernel and to root inside the container).
 */
import { type Vfs, XATTR_NAME_MAX, XATTR_SIZE_MAX, type XattrFlags } from "@computer/vfs";
import { fromBase64, toBase64 } from "../http/base64.ts";
import { ApiError } from "../http/errors.ts";
import { type JsonObject, optionalBoolean, optionalString, requireString } from "../http/json-body.ts";
import { parseBodyPath } from "../http/paths.ts";
import type { OpSpec } from "./fs-ops.ts";

const USER = "user.";

function path(body: JsonObject): string {
  return parseBodyPath(requireString(body, "path"));
}

function follow(body: JsonObject): boolean {
  return optionalBoolean(body, "follow") ?? true;
}

/** An attribute name: non-empty after its namespace, no NUL, at most 255 UTF-8 bytes. */
function attributeName(body: JsonObject, writes: boolean): string {
  const name = requireString(body, "name");
  const bytes = new TextEncoder().encode(name).byteLength;
  if (!/^[a-z]+\.[^\0]+$/.test(name) || bytes > XATTR_NAME_MAX) {
    throw new ApiError(
      "EINVAL",
      `'name' must be a namespaced attribute name like "user.mime" of at most ${XATTR_NAME_MAX} bytes`,
    );
  }
  if (writes && !name.startsWith(USER)) {
    throw new ApiError("EINVAL", `only "${USER}*" attributes can be written through the API`);
  }
  return name;
}

function attributeValue(body: JsonObject): Uint8Array {
  const value = fromBase64(requireString(body, "value"));
  if (value === undefined) throw new ApiError("EINVAL", "'value' must be base64");
  if (value.byteLength > XATTR_SIZE_MAX)
    throw new ApiError("EINVAL", `'value' is larger than ${XATTR_SIZE_MAX} bytes`);
  return value;
}

function flags(body: JsonObject): XattrFlags {
  const mode = optionalString(body, "flag");
  if (mode === undefined) return {};
  if (mode === "create") return { create: true };
  if (mode === "replace") return { replace: true };
  throw new ApiError("EINVAL", `'flag' must be "create" or "replace"`);
}

/** The xattr ops, merged into FS_OPS. */
export const XATTR_OPS = {
  listxattr: {
    writes: false,
    run(vfs: Vfs, body: JsonObject) {
      const p = path(body);
      return { path: p, names: vfs.listxattr(p, follow(body)) };
    },
  },
  getxattr: {
    writes: false,
    run(vfs: Vfs, body: JsonObject) {
      const p = path(body);
      const name = attributeName(body, false);
      return { path: p, name, value: toBase64(vfs.getxattr(p, name, follow(body))) };
    },
  },
  setxattr: {
    writes: true,
    run(vfs: Vfs, body: JsonObject) {
      const p = path(body);
      const name = attributeName(body, true);
      // Every field is checked before the vfs call, so bad input changes nothing.
      const value = attributeValue(body);
      vfs.setxattr(p, name, value, flags(body), follow(body));
      return { path: p, name, size: value.byteLength };
    },
  },
  removexattr: {
    writes: true,
    run(vfs: Vfs, body: JsonObject) {
      const p = path(body);
      const name = attributeName(body, true);
      vfs.removexattr(p, name, follow(body));
      return { path: p, name };
    },
  },
} satisfies Record<string, OpSpec>;
