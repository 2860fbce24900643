/**
 * The owner map a workspace gives its mount (every FUSE backend): none when commands run as
 * the vfs owner, else a swap of the vfs owner and the user commands run as.
 */
import { describe, expect, it } from "vitest";
import { commandOwner, ownerMapFor, VFS_OWNER } from "./workspace.ts";

const isRoot = process.getuid?.() === 0;

describe("ownerMapFor", () => {
  it.skipIf(!isRoot)("as root without a sandbox: commands are the vfs owner, no map", () => {
    expect(commandOwner({ execSandbox: "none" })).toEqual(VFS_OWNER);
    expect(ownerMapFor({ execSandbox: "none" })).toBeUndefined();
  });

  it.skipIf(!isRoot)("as root under bubblewrap: vfs 0:0 and the sandbox user nobody swap", () => {
    const nobody = { uid: 65534, gid: 65534 };
    expect(commandOwner({ execSandbox: "bwrap" })).toEqual(nobody);
    const map = ownerMapFor({ execSandbox: "bwrap" });
    expect(map?.toKernel(VFS_OWNER)).toEqual(nobody);
    expect(map?.fromKernel(nobody)).toEqual(VFS_OWNER);
    expect(map?.toKernel(nobody)).toEqual(VFS_OWNER);
    expect(map?.fromKernel({ uid: 1000, gid: -1 })).toEqual({ uid: 1000, gid: -1 });
  });

  it.skipIf(isRoot)("as another user: the vfs owner shows as that user", () => {
    const own = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const map = ownerMapFor({ execSandbox: "none" });
    expect(map?.toKernel(VFS_OWNER)).toEqual(own);
    expect(map?.fromKernel(own)).toEqual(VFS_OWNER);
  });
});
