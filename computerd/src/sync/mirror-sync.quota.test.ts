/**
 * The computer's quota in the daemon's sync engine (in process, against a stand-in DO): the DO's
 * limits become the mount's (statfs, write(), the FUSE loop's early-write credit), a push is
 * stored whatever the container's writes took, and an upload the DO's quota refuses fails the
 * fence until the room is freed.
 */
import { CHUNK_SIZE } from "@computer/vfs";
import { describe, expect, test } from "vitest";
import { decode, fakeDo, start, writeThroughMount } from "../../test/mirror-sync-harness.ts";
import { tree } from "../../test/stand-in-do.ts";

/** A daemon linked to a stand-in DO that has sent it the quota `quotaBytes`. */
async function linkedWithQuota(quotaBytes: number) {
  const fake = await fakeDo();
  const daemon = await start(fake);
  await daemon.connect();
  const session = await fake.session();
  await session.daemon.setLimits({ quotaBytes });
  return { fake, daemon, session };
}

describe("MirrorSync and the computer's quota", () => {
  test("setLimits makes the DO's quota the mount's: statfs shows it, write() stops at it, then ENOSPC", async () => {
    const { daemon, session } = await linkedWithQuota(64 * 1024);
    const fs = daemon.workspace.mount.fs;
    expect(fs.statfs().blocks).toBe(16);
    const { fh } = fs.create("/big", 0o644);
    expect(fs.write(fh, "/big", new Uint8Array(65 * 1024), 0)).toBe(64 * 1024);
    expect(() => fs.write(fh, "/big", new Uint8Array(1), 64 * 1024)).toThrow(/ENOSPC/);
    fs.release(fh);
    await session.daemon.setLimits({ quotaBytes: null });
    expect(daemon.workspace.mirror.vfs.usage().quotaBytes).toBeNull();
  });

  test("malformed limits are EINVAL and change nothing", async () => {
    const { daemon, session } = await linkedWithQuota(4096);
    for (const quotaBytes of [-1, 1.5, "9", Number.POSITIVE_INFINITY, undefined]) {
      const call = session.daemon.setLimits({ quotaBytes } as unknown as { quotaBytes: number });
      await expect(call).rejects.toMatchObject({ code: "EINVAL" });
    }
    expect(daemon.workspace.mirror.vfs.usage().quotaBytes).toBe(4096);
  });

  test("a push is stored even when the container's own writes fill the quota", async () => {
    const { fake, daemon } = await linkedWithQuota(10_000);
    writeThroughMount(daemon, "/local.txt", "l".repeat(9_000));
    fake.vfs.writeFile("/from-do.txt", "d".repeat(5_000));
    await fake.push();
    const mirror = daemon.workspace.mirror.vfs;
    expect(mirror.stat("/from-do.txt").size).toBe(5_000);
    expect(mirror.usage()).toEqual({ usedBytes: 14_000, quotaBytes: 10_000 });
  });

  test("a push takes its room from the FUSE loop's early-write credit too", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    // The loop's side of the credit (native/fuse3.c): what it may answer without JS.
    const loop = { credit: 0 };
    daemon.workspace.mount.fs.files.useEarlyWrites({
      grant: (bytes) => {
        loop.credit += bytes;
      },
      revoke: () => {
        const left = loop.credit;
        loop.credit = 0;
        return left;
      },
    });
    const session = await fake.session();
    await session.daemon.setLimits({ quotaBytes: 4 * CHUNK_SIZE });
    expect(loop.credit).toBe(4 * CHUNK_SIZE);
    fake.vfs.writeFile("/from-do.bin", new Uint8Array(3 * CHUNK_SIZE).fill(1));
    await fake.push();
    expect(daemon.workspace.mirror.vfs.usage()).toEqual({
      usedBytes: 3 * CHUNK_SIZE,
      quotaBytes: 4 * CHUNK_SIZE,
    });
    expect(loop.credit).toBe(CHUNK_SIZE);
  });

  test("an upload the DO's quota refuses fails the fence with ENOSPC; after rm the fence completes", async () => {
    const fake = await fakeDo();
    const daemon = await start(fake);
    await daemon.connect();
    fake.vfs.setQuota(10_000);
    writeThroughMount(daemon, "/too-big.txt", "x".repeat(20_000));
    await expect(daemon.workspace.sync.fence()).rejects.toMatchObject({ code: "ENOSPC" });
    // Every later fence too, until the container frees the room: no silent drop.
    await expect(daemon.workspace.sync.fence()).rejects.toMatchObject({ code: "ENOSPC" });
    daemon.workspace.mount.fs.unlink("/too-big.txt");
    writeThroughMount(daemon, "/small.txt", "fits");
    const fence = await daemon.workspace.sync.fence();
    expect(fence.rev).toBe(fake.vfs.rev());
    expect(fake.vfs.exists("/too-big.txt")).toBe(false);
    expect(decode(fake.vfs.readFile("/small.txt"))).toBe("fits");
    expect(tree(fake.vfs)).toEqual(tree(daemon.workspace.mirror.vfs));
  });
});
