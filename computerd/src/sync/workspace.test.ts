/**
 * The owner map a workspace gives its mount (every FUSE backend): none when commands run as
 * the vfs owner, else a swap of the vfs owner and the user commands run as.
 */
import { describe, expect, it } from "vitest";
import { commandOwner, ownerMapFor, VFS_OWNER } from "./workspace.ts";

/** The daemon as root, and as an ordinary user. */
const root = { uid: 0, gid: 0 };
const user = { uid: 1000, gid: 1000 };

describe("ownerMapFor", () => {
  it("as root without a sandbox: commands are the vfs owner, no map", () => {
    expect(commandOwner({ execSandbox: "none" }, root)).toEqual(VFS_OWNER);
    expect(ownerMapFor({ execSandbox: "none" }, root)).toBeUndefined();
  });

  it("as root under bubblewrap: vfs 0:0 and the sandbox user nobody swap", () => {
    const nobody = { uid: 65534, gid: 65534 };
    expect(commandOwner({ execSandbox: "bwrap" }, root)).toEqual(nobody);
    const map = ownerMapFor({ execSandbox: "bwrap" }, root);
    expect(map?.toKernel(VFS_OWNER)).toEqual(nobody);
    expect(map?.fromKernel(nobody)).toEqual(VFS_OWNER);
    expect(map?.toKernel(nobody)).toEqual(VFS_OWNER);
    expect(map?.fromKernel({ uid: 1000, gid: -1 })).toEqual({ uid: 1000, gid: -1 });
  });

  it("as another user: the vfs owner shows as that user", () => {
    const map = ownerMapFor({ execSandbox: "none" }, user);
    expect(map?.toKernel(VFS_OWNER)).toEqual(user);
    expect(map?.fromKernel(user)).toEqual(VFS_OWNER);
  });
});
