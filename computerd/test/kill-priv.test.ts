/**
 * FUSE_HANDLE_KILLPRIV_V2 through the real mount (native/kill-priv.h, fuse3-kill-priv.ts): the
 * kernel probes a file's `security.capability` once instead of before every write syscall, and
 * leaves what a write takes from a file to the daemon. Every way a write reaches a file with
 * setuid or a capability still takes them: through JS, as an early write of whole pages, and
 * where the kernel stopped probing before the capability came from the mirror.
 */
import { dirname } from "node:path";
import { expect, it } from "vitest";
import { CAPABILITY_XATTR } from "../src/mount/fuse3-xattrs.ts";
import { describeFreshMount, sh } from "./mounted-mirror.ts";

/** Runs `script` as uid/gid 4242 without capabilities (no CAP_FSETID: its writes kill setuid). */
const asUser = (script: string) => sh(`setpriv --reuid 4242 --regid 4242 --clear-groups sh -c '${script}'`);
/** A file capability as `setcap cap_net_raw+ep` stores it (version 2). */
const CAPABILITY = Buffer.from("0100000200200000000000000000000000000000", "hex");

describeFreshMount("FUSE_HANDLE_KILLPRIV_V2 through the mount", { prefix: "computerd-killpriv-" }, (m) => {
  const probes = () => (m.mount.counters["getxattr (loop)"] ?? 0) + (m.mount.counters.getxattr ?? 0);

  it("probes a file written 4 KiB at a time once, not before every write", async () => {
    const before = probes();
    await sh(`dd if=/dev/zero of=${m.mnt}/small bs=4k count=256 status=none`);
    expect(probes() - before).toBeLessThanOrEqual(1);
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/small").size).toBe(256 * 4096);
  });

  it("takes setuid from a file a caller without CAP_FSETID writes whole pages of", async () => {
    // The first write through a handle reaches JS anyway; these are whole pages from the start,
    // which the loop would answer itself (early writes) if it did not know a file has setuid.
    // The mount's parent is private (mkdtemp): the other user needs to pass through it.
    await sh(
      `chmod 755 ${dirname(m.mnt)} && chmod 777 ${m.mnt} && head -c 2097152 /dev/zero > ${m.mnt}/suid && chmod 4777 ${m.mnt}/suid`,
    );
    await asUser(`dd if=/dev/zero of=${m.mnt}/suid bs=1M count=2 conv=notrunc status=none`);
    expect(await sh(`stat -c %a ${m.mnt}/suid`)).toBe("777\n");
  });

  it("takes setuid the mirror brought from a file written by such a caller", async () => {
    await sh(`head -c 2097152 /dev/zero > ${m.mnt}/pushed && chmod 777 ${m.mnt}/pushed`);
    await m.mount.flushAll();
    m.mirror.vfs.chmod("/pushed", 0o4777);
    await m.mount.invalidate(["/pushed"]);
    await asUser(`dd if=/dev/zero of=${m.mnt}/pushed bs=1M count=2 conv=notrunc status=none`);
    expect(await sh(`stat -c %a ${m.mnt}/pushed`)).toBe("777\n");
  });

  it("removes a capability the mirror brought to a file written through the mount before", async () => {
    // Written through the mount first: the kernel probed it once and marked it (S_NOSEC). Linux
    // 6.18 probes it again after the invalidation's attribute refresh; where a kernel would not,
    // the daemon removes it itself (fuse3-kill-priv.ts, KILL_CAPABILITY).
    await sh(`echo one > ${m.mnt}/capped && echo two >> ${m.mnt}/capped`);
    await m.mount.flushAll();
    m.mirror.vfs.setxattr("/capped", CAPABILITY_XATTR, new Uint8Array(CAPABILITY));
    await m.mount.invalidate(["/capped"]);
    await sh(`echo three >> ${m.mnt}/capped`);
    await m.mount.flushAll();
    expect(m.mirror.vfs.listxattr("/capped")).not.toContain(CAPABILITY_XATTR);
    expect(m.mirror.vfs.readText("/capped")).toBe("one\ntwo\nthree\n");
  });
});
