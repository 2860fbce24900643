/**
 * Unlinks the FUSE loop answers (native/loop-changes.c unlink_here): a name the loop holds as found, in
 * a directory whose attributes it has, is removed without a trip through JS, and the mirror ends
 * as JS's own unlink leaves it — the name gone, an open file kept under a hidden name until its
 * close, a file other names keep with one link less, the directory and that file dated with the
 * unlink's time through the mount and in the mirror. The name is never found again once gone.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("unlinks answered by the FUSE loop", { prefix: "computerd-unlinks-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;

  it("removes files without JS, through the mount and in the mirror", async () => {
    await sh(`mkdir ${m.mnt}/d && cd ${m.mnt}/d && for i in $(seq 1 300); do echo $i > f$i; done`);
    const [loop, toJs] = [count("unlink (loop)"), count("unlink")];
    await sh(`cd ${m.mnt}/d && rm f*`);
    expect(count("unlink (loop)") - loop).toBeGreaterThan(250);
    expect(count("unlink (loop)") - loop + count("unlink") - toJs).toBe(300);
    expect(await sh(`ls -A ${m.mnt}/d | wc -l; cat ${m.mnt}/d/f7 2>&1 || true`)).toBe(
      `0\ncat: ${m.mnt}/d/f7: No such file or directory\n`,
    );
    await m.mount.flushAll();
    expect(m.mirror.vfs.readdir("/d").entries).toHaveLength(0);
  });

  it("dates the directory and a file other names keep with the unlink's time, and drops one link", async () => {
    await sh(`mkdir ${m.mnt}/g && echo object > ${m.mnt}/g/tmp && ln ${m.mnt}/g/tmp ${m.mnt}/g/final`);
    const loop = count("unlink (loop)");
    const seen = await py(`os.unlink("${m.mnt}/g/tmp")
final = os.stat("${m.mnt}/g/final")
print(final.st_nlink, final.st_ctime_ns == os.stat("${m.mnt}/g").st_mtime_ns, final.st_ctime_ns)`);
    expect(count("unlink (loop)") - loop).toBe(1);
    const [nlink, dated, ctimeNs] = (seen[0] ?? "").split(" ");
    expect([nlink, dated]).toEqual(["1", "True"]);
    await m.mount.flushAll();
    const final = m.mirror.vfs.stat("/g/final");
    expect(final.nlink).toBe(1);
    expect(BigInt(final.ctime.sec) * 1_000_000_000n + BigInt(final.ctime.nsec)).toBe(BigInt(ctimeNs ?? 0));
    expect(m.mirror.vfs.stat("/g").mtime).toEqual(final.ctime);
    expect(m.mirror.vfs.exists("/g/tmp")).toBe(false);
    expect(m.mirror.vfs.readText("/g/final")).toBe("object\n");
  });

  it("keeps a file still open until its close, then nothing is left of it", async () => {
    await sh(`mkdir ${m.mnt}/o`);
    const loop = count("unlink (loop)");
    const out = await py(`fd = os.open("${m.mnt}/o/open", os.O_CREAT | os.O_RDWR, 0o644)
os.write(fd, b"still here")
os.stat("${m.mnt}/o/open")
os.unlink("${m.mnt}/o/open")
print(os.path.exists("${m.mnt}/o/open"), os.fstat(fd).st_nlink, os.pread(fd, 100, 0).decode())
os.close(fd)`);
    expect(out).toEqual(["False 0 still here"]);
    expect(count("unlink (loop)") - loop).toBe(1);
    await m.mount.flushAll();
    expect(m.mirror.vfs.readdir("/o").entries).toHaveLength(0);
    expect(await sh(`ls -A ${m.mnt} | grep -c fuse_hidden || true`)).toBe("0\n");
  });

  it("never finds a name again once the loop removed it, however soon it is asked", async () => {
    await sh(`mkdir ${m.mnt}/n`);
    const loop = count("unlink (loop)");
    const out = await sh(`cd ${m.mnt}/n && for i in $(seq 1 200); do
  echo $i > f && cat f > /dev/null && rm f && if [ -e f ]; then echo "found f after its unlink ($i)"; fi
  echo again > f && [ "$(cat f)" = again ] || echo "lost the new f ($i)"; rm f
done; ls -A | wc -l`);
    expect(out).toBe("0\n");
    expect(count("unlink (loop)") - loop).toBeGreaterThan(200);
    await m.mount.flushAll();
    expect(m.mirror.vfs.readdir("/n").entries).toHaveLength(0);
  });

  it("refuses what the kernel refuses and JS would, changing nothing", async () => {
    await sh(`mkdir -p ${m.mnt}/r/sub && echo x > ${m.mnt}/r/f && ls ${m.mnt}/r > /dev/null`);
    const out = await py(`for path in ["${m.mnt}/r/sub", "${m.mnt}/r/missing"]:
    try:
        os.unlink(path)
        print("unlinked", path)
    except OSError as e:
        print(e.strerror)`);
    expect(out).toEqual(["Is a directory", "No such file or directory"]);
    expect(await sh(`ls ${m.mnt}/r`)).toBe("f\nsub\n");
  });

  it("answers no unlink while the sync client holds the loop's changes", async () => {
    await sh(
      `mkdir ${m.mnt}/h && echo a > ${m.mnt}/h/a && echo b > ${m.mnt}/h/b && ls ${m.mnt}/h > /dev/null`,
    );
    const release = m.mount.holdCreates();
    const [loop, toJs] = [count("unlink (loop)"), count("unlink")];
    await sh(`rm ${m.mnt}/h/a`);
    expect([count("unlink (loop)") - loop, count("unlink") - toJs]).toEqual([0, 1]);
    release();
    await sh(`rm ${m.mnt}/h/b`);
    expect([count("unlink (loop)") - loop, count("unlink") - toJs]).toEqual([1, 1]);
  });
});
