/**
 * Path parsing and validation: absolute POSIX paths inside the computer,
 * normalised lexically, with NAME_MAX enforced per name. An absolute path has no length limit
 * of its own: Linux limits only the string one syscall takes, and a file may lie deeper.
 */
import { FsError } from "./errors.ts";
import { NAME_MAX } from "./limits.ts";

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function byteLength(text: string): number {
  // Fast path: ASCII-only strings have one byte per code unit.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length;
  }
  return text.length;
}

/** Checks one directory-entry name; throws EINVAL / ENAMETOOLONG. */
export function checkName(name: string, syscall: string, path: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new FsError("EINVAL", syscall, path, `invalid name '${name}'`);
  }
  if (byteLength(name) > NAME_MAX) throw new FsError("ENAMETOOLONG", syscall, path);
}

/**
 * Splits an absolute path into its names. `.` and empty segments are dropped and `..`
 * pops lexically (never above the root). Throws EINVAL for relative paths and NUL bytes,
 * ENAMETOOLONG for a name over NAME_MAX bytes.
 */
export function splitPath(path: string, syscall: string): string[] {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new FsError("EINVAL", syscall, String(path), "path must be absolute");
  }
  if (path.includes("\0")) throw new FsError("EINVAL", syscall, path, "path contains a NUL byte");
  const names: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      names.pop();
      continue;
    }
    if (part.length > NAME_MAX / 4 && byteLength(part) > NAME_MAX) {
      throw new FsError("ENAMETOOLONG", syscall, path);
    }
    names.push(part);
  }
  return names;
}

/** Joins names into an absolute path. */
export function joinPath(names: readonly string[]): string {
  return names.length === 0 ? "/" : `/${names.join("/")}`;
}

/** Normalises an absolute path (see splitPath). */
export function normalizePath(path: string, syscall = "open"): string {
  return joinPath(splitPath(path, syscall));
}

/** The child path `name` under directory path `dir`. */
export function childPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** True when `path` equals `ancestor` or lies below it. */
export function isWithin(path: string, ancestor: string): boolean {
  return ancestor === "/" || path === ancestor || path.startsWith(`${ancestor}/`);
}
