/**
 * The quota and the largest file size reach programs in the syscall that passes them, as on
 * a full local disk: write() takes what fits (a short count), then fails with ENOSPC (or
 * pwrite with EFBIG) while close() and the
 * fence succeed; data a later flush cannot store is reported once by fsync, then dropped, and
 * the mount keeps working.
 */

import { execFile } from "node:child_process";
import { expect, it } from "vitest";
import { describeFreshMount } from "./mounted-mirror.ts";

const QUOTA = 256 * 1024;

/**
 * Runs a Python snippet; `step(name, fn)` prints "name OK" or "name ERRNO" so a test sees
 * which call failed with which code.
 */
function py(body: string): Promise<string[]> {
  const script = [
    "import errno, os",
    "def step(name, fn):",
    "    try:",
    "        r = fn()",
    "        print(name, 'OK' if r is None else r, flush=True)",
    "    except OSError as e:",
    "        print(name, errno.errorcode[e.errno], flush=True)",
    body,
  ].join("\n");
  return new Promise((resolve, reject) => {
    execFile("python3", ["-c", script], { cwd: "/" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`python failed: ${stderr}`));
      else resolve(stdout.trim().split("\n"));
    });
  });
}

function sh(script: string): Promise<string> {
  return new Promise((resolve) => {
    execFile("sh", ["-c", script], { cwd: "/" }, (_err, stdout, stderr) => resolve(stdout + stderr));
  });
}

describeFreshMount(
  "quota in write() through the mount",
  { prefix: "computerd-quota-write-", quota: QUOTA },
  (m) => {
    it("write() itself fails with ENOSPC at the quota; close and the fence succeed", async () => {
      const out = await py(`
fd = os.open("${m.mnt}/big", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
chunk = b"x" * 65536
total = 0
while True:
    try:
        total += os.write(fd, chunk)
    except OSError as e:
        print("write", errno.errorcode[e.errno], total, flush=True)
        break
step("close", lambda: os.close(fd))
`);
      expect(out).toEqual([`write ENOSPC ${QUOTA}`, "close OK"]);
      // statfs counts what is still buffered (a big file is stored shortly after its close).
      expect(await sh(`stat -f -c '%b %f' ${m.mnt}`)).toBe(`${QUOTA / 4096} 0\n`);
      const dd = await sh(`dd if=/dev/zero of=${m.mnt}/more bs=64k count=4 2>&1; echo "exit $?"`);
      expect(dd).toContain("No space left on device");
      expect(dd).toContain("exit 1");
      await m.mount.flushAll();
      expect(m.mirror.vfs.stat("/big").size).toBe(QUOTA);
      expect(m.mirror.vfs.usage().usedBytes).toBe(QUOTA);
      // rm frees the room for the next writer.
      expect(await sh(`rm ${m.mnt}/big ${m.mnt}/more && echo fits > ${m.mnt}/ok && cat ${m.mnt}/ok`)).toBe(
        "fits\n",
      );
      await m.mount.flushAll();
      expect(m.mirror.vfs.exists("/big")).toBe(false);
    });

    it("a write() that passes the quota takes what fits (a short count); the next one is ENOSPC", async () => {
      await m.mount.flushAll();
      const room = QUOTA - m.mirror.vfs.usage().usedBytes;
      expect(room).toBeGreaterThan(0);
      const out = await py(`
fd = os.open("${m.mnt}/edge", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
step("write", lambda: os.write(fd, b"y" * (${room} + 5000)))
step("again", lambda: os.write(fd, b"y"))
step("close", lambda: os.close(fd))
`);
      expect(out).toEqual([`write ${room}`, "again ENOSPC", "close OK"]);
      await m.mount.flushAll();
      expect(m.mirror.vfs.stat("/edge").size).toBe(room);
      await sh(`rm -f ${m.mnt}/edge`);
    });

    it("pwrite at the largest file size fails with EFBIG in pwrite, nothing is stored", async () => {
      // At the limit itself (a write straddling it takes what fits, a short count, as on Linux).
      const out = await py(`
fd = os.open("${m.mnt}/huge", os.O_WRONLY | os.O_CREAT, 0o644)
step("pwrite", lambda: os.pwrite(fd, b"0123456789", 2**53 - 1) and None)
step("fsync", lambda: os.fsync(fd))
step("close", lambda: os.close(fd))
`);
      expect(out).toEqual(["pwrite EFBIG", "fsync OK", "close OK"]);
      await m.mount.flushAll();
      expect(m.mirror.vfs.stat("/huge").size).toBe(0);
      await sh(`rm -f ${m.mnt}/huge`);
    });

    it("a flush the quota refuses later is reported once by fsync and dropped; the mount goes on", async () => {
      // The writer buffers 100 kB, then waits (.go exists) while the room shrinks under it, as
      // when the Durable Object holds less room than the container thought.
      const run = py(`
import time
fd = os.open("${m.mnt}/late", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
step("write", lambda: os.write(fd, b"y" * 100000) and None)
open("${m.mnt}/.go", "w").close()
while os.path.exists("${m.mnt}/.go"):
    time.sleep(0.01)
step("fsync", lambda: os.fsync(fd))
step("fsync", lambda: os.fsync(fd))
step("pwrite", lambda: os.pwrite(fd, b"z" * 10, 0) and None)
step("close", lambda: os.close(fd))
`);
      // The daemon must not call into its own mount synchronously: watch the mirror instead.
      const deadline = Date.now() + 30_000;
      while (!m.mirror.vfs.exists("/.go")) {
        if (Date.now() > deadline) throw new Error("the writer never created /.go");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      m.mirror.vfs.setQuota(m.mirror.vfs.usage().usedBytes + 1000);
      await sh(`rm ${m.mnt}/.go`);
      try {
        expect(await run).toEqual(["write OK", "fsync ENOSPC", "fsync OK", "pwrite OK", "close OK"]);
        await m.mount.flushAll();
        expect(m.mirror.vfs.readText("/late")).toBe("z".repeat(10));
      } finally {
        m.mirror.vfs.setQuota(QUOTA);
      }
    });
  },
);
