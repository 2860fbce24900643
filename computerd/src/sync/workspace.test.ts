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
    expect(commandOwner({ execSandbox: "none", sandboxUid: 65534 }, root)).toEqual(VFS_OWNER);
    expect(ownerMapFor({ execSandbox: "none", sandboxUid: 65534, sandboxRoot: "" }, root)).toBeUndefined();
  });

  it("as root under bubblewrap: vfs 0:0 and the sandbox user (nobody by default) swap", () => {
    const nobody = { uid: 65534, gid: 65534 };
    expect(commandOwner({ execSandbox: "bwrap", sandboxUid: 65534 }, root)).toEqual(nobody);
    const map = ownerMapFor({ execSandbox: "bwrap", sandboxUid: 65534, sandboxRoot: "" }, root);
    expect(map?.toKernel(VFS_OWNER)).toEqual(nobody);
    expect(map?.fromKernel(nobody)).toEqual(VFS_OWNER);
    expect(map?.toKernel(nobody)).toEqual(VFS_OWNER);
    expect(map?.fromKernel({ uid: 1000, gid: -1 })).toEqual({ uid: 1000, gid: -1 });
  });

  it("as root under bubblewrap with a computer's own sandbox user: that user is the owner", () => {
    const own = { uid: 1_000_000, gid: 1_000_000 };
    expect(commandOwner({ execSandbox: "bwrap", sandboxUid: own.uid }, root)).toEqual(own);
    expect(
      ownerMapFor({ execSandbox: "bwrap", sandboxUid: own.uid, sandboxRoot: "" }, root)?.toKernel(VFS_OWNER),
    ).toEqual(own);
  });

  it("as another user under bubblewrap: commands run as that user, whatever sandboxUid says", () => {
    expect(commandOwner({ execSandbox: "bwrap", sandboxUid: 65534 }, user)).toEqual(user);
  });

  it("as another user: the vfs owner shows as that user", () => {
    const map = ownerMapFor({ execSandbox: "none", sandboxUid: 65534, sandboxRoot: "" }, user);
    expect(map?.toKernel(VFS_OWNER)).toEqual(user);
    expect(map?.fromKernel(user)).toEqual(VFS_OWNER);
  });
});

describe("ownerMapFor over the image's root filesystem (root of a user namespace)", () => {
  const config = { execSandbox: "bwrap" as const, sandboxUid: 1_000_000, sandboxRoot: "/srv/root" };

  it("as root: vfs id N is host id base+N and back, so ids round-trip unchanged inside", () => {
    const map = ownerMapFor(config, root);
    expect(map?.toKernel(VFS_OWNER)).toEqual({ uid: 1_000_000, gid: 1_000_000 });
    expect(map?.toKernel({ uid: 1234, gid: 5678 })).toEqual({ uid: 1_001_234, gid: 1_005_678 });
    expect(map?.fromKernel({ uid: 1_001_234, gid: -1 })).toEqual({ uid: 1234, gid: -1 });
    // The host's root (outside the range) passes through; a vfs id past the range shows as overflow.
    expect(map?.fromKernel(VFS_OWNER)).toEqual(VFS_OWNER);
    expect(map?.toKernel({ uid: 70_000, gid: 0 })).toEqual({ uid: 1_065_534, gid: 1_000_000 });
  });

  it("as another user, the root filesystem is not used: the plain map", () => {
    expect(ownerMapFor(config, user)?.toKernel(VFS_OWNER)).toEqual(user);
  });
});
