/**
 * The extended-attribute requests of the fuse3 backend: setxattr, getxattr, listxattr and
 * removexattr on LocalFs, with the size-probe protocol (size 0 asks for the length, a
 * smaller buffer is ERANGE) and Linux's namespaces (any other name is EOPNOTSUPP).
 */
import { ERRNO } from "./errno.ts";
import { type Fuse3Addon, OP, type RequestHandle } from "./fuse3-native.ts";
import type { LocalFs } from "./local-fs.ts";

const XATTR_CREATE = 1;
const XATTR_REPLACE = 2;
/**
 * Extended attribute namespaces Linux knows; any other name is EOPNOTSUPP, as on ext4/tmpfs
 * (the vfs itself stores any name, so the mount answers this one itself).
 */
const XATTR_NAMESPACE = /^(user|trusted|security|system)\./;

/** The attribute the kernel probes before every write syscall. */
export const CAPABILITY_XATTR = "security.capability";

/** What the xattr handlers need of the listener. */
export interface XattrContext {
  addon: Fuse3Addon;
  fs: LocalFs;
  pathOf(ino: number): string;
  /** A `security.capability` attribute is about to be stored. */
  capabilityStored?(): void;
}

function reply(addon: Fuse3Addon, req: RequestHandle, size: number, value: Uint8Array): void {
  if (size === 0) addon.replyXattrSize(req, value.length);
  else if (size < value.length) addon.replyErr(req, -ERRNO.ERANGE);
  else addon.replyBuf(req, value, value.length);
}

/** Answers an xattr request (arguments as native/fuse3.c pushes them); false for any other op. */
export function handleXattr(
  ctx: XattrContext,
  op: number,
  req: RequestHandle,
  a: readonly (number | string | Buffer)[],
): boolean {
  const { addon, fs } = ctx;
  const n = (i: number) => a[i] as number;
  const s = (i: number) => a[i] as string;
  const name = op === OP.setxattr || op === OP.getxattr ? s(2) : op === OP.removexattr ? s(1) : undefined;
  if (op !== OP.listxattr && name === undefined) return false;
  if (name !== undefined && !XATTR_NAMESPACE.test(name)) {
    addon.replyErr(req, -ERRNO.EOPNOTSUPP);
    return true;
  }
  const path = ctx.pathOf(n(0));
  if (op === OP.setxattr && name !== undefined) {
    if (name === CAPABILITY_XATTR) ctx.capabilityStored?.();
    fs.setxattr(path, name, new Uint8Array(a[3] as Buffer), {
      create: (n(1) & XATTR_CREATE) !== 0,
      replace: (n(1) & XATTR_REPLACE) !== 0,
    });
    addon.replyErr(req, 0);
  } else if (op === OP.getxattr && name !== undefined) {
    const value = fs.getxattr(path, name);
    if (value) reply(addon, req, n(1), value);
    else addon.replyErr(req, -ERRNO.ENODATA);
  } else if (op === OP.listxattr) {
    const names = fs.listxattr(path);
    reply(addon, req, n(1), Buffer.from(names.map((x) => `${x}\0`).join("")));
  } else if (name !== undefined) {
    fs.removexattr(path, name);
    addon.replyErr(req, 0);
  }
  return true;
}
