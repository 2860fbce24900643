/**
 * Quota errors surface where a program can see them (in write() itself: see
 * quota-write.test.ts); the mount keeps working once files are removed.
 */

import { execFile } from "node:child_process";
import { expect, it, vi } from "vitest";
import { describeFreshMount } from "./mounted-mirror.ts";

function sh(script: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile("sh", ["-c", script], { cwd: "/" }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describeFreshMount("quota through the mount", { prefix: "computerd-quota-", quota: 64 * 1024 }, (m) => {
  it("reports ENOSPC to a small and a big writer; rm makes room again", async () => {
    const small = await sh(`head -c 100000 /dev/zero > ${m.mnt}/small`);
    expect(small.code).not.toBe(0);
    expect(small.out).toContain("No space left on device");
    const big = await sh(`dd if=/dev/zero of=${m.mnt}/big bs=1M count=3 conv=fsync 2>&1`);
    expect(big.code).not.toBe(0);
    expect(big.out).toContain("No space left on device");
    // write() refused only what passed the quota: what it accepted stays, as on a full disk.
    await sh(`rm -f ${m.mnt}/small ${m.mnt}/big`);
    const fits = await sh(`echo fits > ${m.mnt}/ok && cat ${m.mnt}/ok && stat -f -c '%b' ${m.mnt}`);
    expect(fits.out).toBe("fits\n16\n");
    // The kernel sends RELEASE for the writers' descriptors asynchronously, so rm may come
    // first: the file then lives on unnamed (with its unstorable data) until that release.
    await vi.waitFor(() => m.mount.flushAll(), { timeout: 5000, interval: 50 });
    expect(m.mirror.vfs.exists("/small")).toBe(false);
    expect(m.mirror.vfs.usage().usedBytes).toBeLessThan(64 * 1024);
  });
});
