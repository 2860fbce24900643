/**
 * Opens the FUSE loop answers (native/fuse3.c ll_opendir, ll_open): an opendir of a directory,
 * or a read-only open of a file, whose attributes the loop holds, whose atime the read would
 * leave alone (relatime) and, for a file, whose pages the kernel holds are of its current size
 * and mtime, is answered without JS, keeping the kernel's listing or pages; so is the opendir
 * of a directory whose listing is certainly due to move atime (changed since), without keeping
 * the listing. Every listing and
 * read still shows what is there — after a change through the mount, a change behind it
 * (invalidate), an access due to move atime — and a file removed while the loop's handle holds
 * it open stays readable through it.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("opens answered by the FUSE loop", { prefix: "computerd-opens-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;
  const atime = (path: string) => sh(`stat -c %X.%x ${path}`);

  it("answers the opendir of a directory listed before, and every listing shows what is there", async () => {
    await sh(`mkdir ${m.mnt}/d && echo 1 > ${m.mnt}/d/a && echo 2 > ${m.mnt}/d/b`);
    // The first listing after the creates is due to move atime: its readdir reaches JS.
    expect(await sh(`ls ${m.mnt}/d`)).toBe("a\nb\n");
    const [toJs, loop] = [count("opendir"), count("opendir (loop)")];
    const moved = await atime(`${m.mnt}/d`);
    expect(await sh(`ls ${m.mnt}/d; ls ${m.mnt}/d`)).toBe("a\nb\na\nb\n");
    expect(count("opendir (loop)") - loop).toBe(2);
    expect(count("opendir") - toJs).toBe(0);
    expect(await atime(`${m.mnt}/d`)).toBe(moved);
    // A change in the directory makes its next listing due (mtime passed atime): the loop
    // answers that opendir too, dropping the kernel's listing, so the readdir reaches JS.
    await sh(`echo 3 > ${m.mnt}/d/c && rm ${m.mnt}/d/a`);
    const readdirs = count("readdirplus");
    expect(await sh(`ls ${m.mnt}/d`)).toBe("b\nc\n");
    expect(count("readdirplus") - readdirs).toBeGreaterThan(0);
    expect(count("opendir") - toJs).toBe(0);
    expect(await atime(`${m.mnt}/d`)).not.toBe(moved);
    expect(await sh(`ls ${m.mnt}/d`)).toBe("b\nc\n");
    expect(count("opendir (loop)") - loop).toBe(4);
  });

  it("lists a change made behind the mount once invalidate() told", async () => {
    await sh(
      `mkdir ${m.mnt}/r && echo 1 > ${m.mnt}/r/a && ls ${m.mnt}/r >/dev/null && ls ${m.mnt}/r >/dev/null`,
    );
    await m.mount.flushAll();
    m.mirror.vfs.writeFile("/r/remote", "from the DO\n");
    await m.mount.invalidate(["/r/remote"]);
    expect(await sh(`ls ${m.mnt}/r`)).toBe("a\nremote\n");
  });

  it("lists the entries of a directory opened by the loop with their attributes, in a long listing", async () => {
    await sh(
      `mkdir ${m.mnt}/l && for i in 1 2 3; do echo $i > ${m.mnt}/l/f$i; done && ls ${m.mnt}/l >/dev/null`,
    );
    const loop = count("opendir (loop)");
    expect(await sh(`ls -l ${m.mnt}/l | awk 'NR > 1 { print $5, $9 }'`)).toBe("2 f1\n2 f2\n2 f3\n");
    expect(await sh(`find ${m.mnt}/l -type f | sort | xargs cat`)).toBe("1\n2\n3\n");
    expect(count("opendir (loop)") - loop).toBeGreaterThan(0);
  });

  it("answers a read-only open of a file read before, and every read shows what is there", async () => {
    await sh(`echo one > ${m.mnt}/f && cat ${m.mnt}/f >/dev/null`);
    const [toJs, loop] = [count("open"), count("open (loop)")];
    expect(await sh(`cat ${m.mnt}/f; cat ${m.mnt}/f`)).toBe("one\none\n");
    expect(count("open (loop)") - loop).toBe(2);
    expect(count("open") - toJs).toBe(0);
    // The kernel's own append: its pages are current, the loop keeps answering.
    await sh(`echo two >> ${m.mnt}/f`);
    expect(await sh(`cat ${m.mnt}/f`)).toBe("one\ntwo\n");
    // A change behind the mount: JS answers, the kernel's pages go.
    await m.mount.flushAll();
    m.mirror.vfs.writeFile("/f", "remote\n");
    await m.mount.invalidate(["/f"]);
    expect(await sh(`cat ${m.mnt}/f; cat ${m.mnt}/f`)).toBe("remote\nremote\n");
    // Writable and truncating opens stay JS's.
    const writes = count("open");
    await sh(`echo three >> ${m.mnt}/f && : > ${m.mnt}/f && echo four > ${m.mnt}/f`);
    expect(count("open") - writes).toBeGreaterThanOrEqual(1);
    expect(await sh(`cat ${m.mnt}/f`)).toBe("four\n");
  });

  it("keeps a file the loop opened readable through its handle after its last name went", async () => {
    await sh(`echo kept > ${m.mnt}/gone && cat ${m.mnt}/gone >/dev/null`);
    const loop = count("open (loop)");
    const out = await py(`fd = os.open("${m.mnt}/gone", os.O_RDONLY)
os.unlink("${m.mnt}/gone")
print(os.fstat(fd).st_nlink, os.read(fd, 100).decode().strip(), os.path.exists("${m.mnt}/gone"))
os.close(fd)`);
    expect(count("open (loop)") - loop).toBe(1);
    expect(out).toEqual(["0 kept False"]);
  });

  it("sends no FLUSH at the close of a read-only handle, opened by JS or by the loop; a writer's close still does", async () => {
    // Bigger than a page, so its first read-only open (atime due) is JS's, the next the loop's.
    await sh(`head -c 10000 /dev/urandom > ${m.mnt}/nf`);
    const flushes = () => count("flush") + count("flush (loop)");
    const [opens, loopOpens, before] = [count("open"), count("open (loop)"), flushes()];
    await sh(`cat ${m.mnt}/nf > /dev/null && cat ${m.mnt}/nf > /dev/null`);
    expect([count("open") - opens, count("open (loop)") - loopOpens]).toEqual([1, 1]);
    expect(flushes()).toBe(before);
    await sh(`echo more >> ${m.mnt}/nf`);
    expect(flushes()).toBeGreaterThan(before);
  });
});
