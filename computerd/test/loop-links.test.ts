/**
 * Links the FUSE loop answers (native/loop-changes.c link_here): a new name, certainly missing, for a
 * file whose attributes the loop holds is answered without JS, and the mirror ends as JS's own
 * link leaves it — one link more, the file's ctime and the directory's mtime the link's time,
 * through the mount and in the mirror, the bytes (buffered ones too) under every name. git's
 * object writes (a temporary name linked, then removed) and a local clone's linked objects are
 * the loop's from end to end.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("links answered by the FUSE loop", { prefix: "computerd-links-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;
  const nsOf = (t: { sec: number; nsec: number }) => BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);

  it("makes the link JS would: one link more, the file and the directory dated with its time", async () => {
    await sh(`mkdir ${m.mnt}/d ${m.mnt}/e && echo linked > ${m.mnt}/d/a && stat ${m.mnt}/d/a > /dev/null`);
    const [loop, toJs] = [count("link (loop)"), count("link")];
    const seen = await py(`os.link("${m.mnt}/d/a", "${m.mnt}/e/b")
a = os.stat("${m.mnt}/d/a")
print(a.st_nlink, a.st_ctime_ns, a.st_ctime_ns == os.stat("${m.mnt}/e").st_mtime_ns, os.stat("${m.mnt}/e/b").st_ino == a.st_ino)`);
    expect([count("link (loop)") - loop, count("link") - toJs]).toEqual([1, 0]);
    const [nlink, ctimeNs, dated, same] = (seen[0] ?? "").split(" ");
    expect([nlink, dated, same]).toEqual(["2", "True", "True"]);
    await m.mount.flushAll();
    const b = m.mirror.vfs.stat("/e/b");
    expect(b).toMatchObject({ ino: m.mirror.vfs.stat("/d/a").ino, nlink: 2 });
    expect(nsOf(b.ctime)).toBe(BigInt(ctimeNs ?? 0));
    expect(m.mirror.vfs.stat("/e").mtime).toEqual(b.ctime);
    expect(m.mirror.vfs.readText("/e/b")).toBe("linked\n");
  });

  it("a file written, linked and its first name removed keeps its bytes under the new name", async () => {
    await sh(`mkdir -p ${m.mnt}/o/ab && ls ${m.mnt}/o/ab`);
    const [links, unlinks] = [count("link (loop)"), count("unlink (loop)")];
    await sh(`cd ${m.mnt}/o && for i in $(seq 1 100); do
  echo "object $i" > ab/tmp_$i && stat ab/tmp_$i > /dev/null && ln ab/tmp_$i ab/obj_$i && rm ab/tmp_$i
done`);
    expect(count("link (loop)") - links).toBeGreaterThan(50);
    expect(count("unlink (loop)") - unlinks).toBeGreaterThan(50);
    expect(await sh(`cd ${m.mnt}/o/ab && ls | wc -l && cat obj_1 obj_100 && stat -c %h obj_50`)).toBe(
      "100\nobject 1\nobject 100\n1\n",
    );
    await m.mount.flushAll();
    expect(m.mirror.vfs.readdir("/o/ab").entries).toHaveLength(100);
    expect(m.mirror.vfs.readText("/o/ab/obj_77")).toBe("object 77\n");
    expect(m.mirror.vfs.stat("/o/ab/obj_77").nlink).toBe(1);
  });

  it("refuses a name taken and a directory as the kernel does, changing nothing", async () => {
    await sh(
      `mkdir -p ${m.mnt}/r/sub && echo x > ${m.mnt}/r/f && echo y > ${m.mnt}/r/g && ls -l ${m.mnt}/r > /dev/null`,
    );
    const out = await py(`for src, dst in [("f", "g"), ("sub", "sub2")]:
    try:
        os.link("${m.mnt}/r/" + src, "${m.mnt}/r/" + dst)
        print("linked", dst)
    except OSError as e:
        print(e.strerror)`);
    expect(out).toEqual(["File exists", "Operation not permitted"]);
    expect(await sh(`ls ${m.mnt}/r && cat ${m.mnt}/r/g && stat -c %h ${m.mnt}/r/f`)).toBe(
      "f\ng\nsub\ny\n1\n",
    );
  });

  it("answers no link while the sync client holds the loop's changes", async () => {
    await sh(`mkdir ${m.mnt}/h && echo a > ${m.mnt}/h/a && ls -l ${m.mnt}/h > /dev/null`);
    const release = m.mount.holdCreates();
    const [loop, toJs] = [count("link (loop)"), count("link")];
    await sh(`ln ${m.mnt}/h/a ${m.mnt}/h/b`);
    release();
    await sh(`stat ${m.mnt}/h/a > /dev/null && ln ${m.mnt}/h/a ${m.mnt}/h/c`);
    expect([count("link (loop)") - loop, count("link") - toJs]).toEqual([1, 1]);
    expect(await sh(`stat -c %h ${m.mnt}/h/c`)).toBe("3\n");
  });

  it("a local git clone links its objects through the loop and checks out whole", async () => {
    await sh(
      `cd ${m.mnt} && git init -q src && cd src && for i in $(seq 1 30); do echo $i > f$i; done && git add -A && git -c user.email=a@b -c user.name=a commit -qm one && cd .. && git clone -q --bare src src.git`,
    );
    const loop = count("link (loop)");
    await sh(`cd ${m.mnt} && git clone -q src.git work`);
    expect(count("link (loop)") - loop).toBeGreaterThan(0);
    expect(await sh(`cd ${m.mnt}/work && git fsck --strict 2>&1 && cat f30 && git ls-files | wc -l`)).toBe(
      "30\n30\n",
    );
  });
});
