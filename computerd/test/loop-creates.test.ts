/**
 * Creates the FUSE loop answers (native/loop-creates.h, loop-changes.c create_here): a new file in a
 * directory whose names the loop holds is answered without JS, and it is the file JS's own
 * create makes — the same inode number, owner, mode and times through the mount and in the
 * mirror, its directory dated by it, its bytes stored, its name found, renamed, linked and
 * removed like any other. Where JS's answer is not certain (a setgid directory, a setuid mode,
 * a directory whose names the loop does not hold) JS answers, as before.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("creates answered by the FUSE loop", { prefix: "computerd-creates-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;

  it("makes the file JS would: number, owner, mode, times and bytes, through the mount and in the mirror", async () => {
    await sh(`mkdir ${m.mnt}/d`);
    const [loop, toJs] = [count("create (loop)"), count("create")];
    const seen = await py(`os.umask(0o027)
fd = os.open("${m.mnt}/d/new", os.O_CREAT | os.O_WRONLY, 0o666)
os.write(fd, b"bytes")
os.close(fd)
os.close(os.open("${m.mnt}/d/empty", os.O_CREAT | os.O_WRONLY, 0o666))
st = os.stat("${m.mnt}/d/new")
empty = os.stat("${m.mnt}/d/empty")
d = os.stat("${m.mnt}/d")
print(st.st_ino, oct(st.st_mode), st.st_uid, st.st_gid, st.st_size, empty.st_ctime_ns, d.st_mtime_ns == empty.st_ctime_ns)`);
    expect(count("create (loop)") - loop).toBe(2);
    expect(count("create") - toJs).toBe(0);
    const [ino, mode, uid, gid, size, ctimeNs, dirDated] = (seen[0] ?? "").split(" ");
    expect([mode, uid, gid, size, dirDated]).toEqual(["0o100640", "0", "0", "5", "True"]);
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/d/new")).toMatchObject({
      ino: Number(ino),
      mode: 0o640,
      uid: 0,
      gid: 0,
      size: 5,
    });
    const { ctime } = m.mirror.vfs.stat("/d/empty");
    expect(BigInt(ctime.sec) * 1_000_000_000n + BigInt(ctime.nsec)).toBe(BigInt(ctimeNs ?? 0));
    expect(m.mirror.vfs.stat("/d").mtime).toEqual(ctime);
    expect(m.mirror.vfs.readText("/d/new")).toBe("bytes");
  });

  it("finds, renames, links and removes the new files like any other, across more than one supply of numbers", async () => {
    await sh(`mkdir ${m.mnt}/many && cd ${m.mnt}/many && for i in $(seq 1 1500); do echo $i > f$i; done`);
    expect(
      await sh(
        `cd ${m.mnt}/many && cat f1 f777 f1500 && ls | wc -l && ls -i | awk '{ print $1 }' | sort -u | wc -l`,
      ),
    ).toBe("1\n777\n1500\n1500\n1500\n");
    await sh(`cd ${m.mnt}/many && mv f1 moved && ln f2 linked && rm f3 && echo again > f3`);
    expect(await sh(`cd ${m.mnt}/many && cat moved linked f3 && stat -c %h f2 && ls f1 2>&1 || true`)).toBe(
      "1\n2\nagain\n2\nls: cannot access 'f1': No such file or directory\n",
    );
    await m.mount.flushAll();
    expect(m.mirror.vfs.readText("/many/f1500")).toBe("1500\n");
    expect(m.mirror.vfs.stat("/many/linked").ino).toBe(m.mirror.vfs.stat("/many/f2").ino);
    // f1 moved, f2 linked: one name more.
    expect(m.mirror.vfs.readdir("/many").entries).toHaveLength(1501);
  });

  it("the fence holds every file the loop created, written to or not", async () => {
    await sh(`mkdir ${m.mnt}/e && cd ${m.mnt}/e && for i in $(seq 1 300); do : > e$i; done`);
    await m.mount.flushAll();
    expect(m.mirror.vfs.readdir("/e").entries).toHaveLength(300);
  });

  it("answers no create while the sync client holds them (applying the DO's changes)", async () => {
    await sh(`mkdir ${m.mnt}/h`);
    const release = m.mount.holdCreates();
    const [loop, toJs] = [count("create (loop)"), count("create")];
    await sh(`echo held > ${m.mnt}/h/a`);
    expect([count("create (loop)") - loop, count("create") - toJs]).toEqual([0, 1]);
    release();
    await sh(`echo free > ${m.mnt}/h/b`);
    expect([count("create (loop)") - loop, count("create") - toJs]).toEqual([1, 1]);
  });

  it("an exclusive create of a name the loop just made fails with EEXIST", async () => {
    await sh(`mkdir ${m.mnt}/x`);
    const out = await py(`fd = os.open("${m.mnt}/x/once", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
os.close(fd)
try:
    os.open("${m.mnt}/x/once", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    print("created twice")
except FileExistsError:
    print("EEXIST")`);
    expect(out).toEqual(["EEXIST"]);
  });

  it("leaves a setgid directory's creates and a setuid mode's to JS, which answers them as before", async () => {
    await sh(`mkdir ${m.mnt}/g && chown 0:1234 ${m.mnt}/g && chmod 2775 ${m.mnt}/g && ls ${m.mnt}/g`);
    const [loop, toJs] = [count("create (loop)"), count("create")];
    await sh(`echo x > ${m.mnt}/g/inherits`);
    expect(await sh(`stat -c %g ${m.mnt}/g/inherits`)).toBe("1234\n");
    await py(`os.umask(0)
os.close(os.open("${m.mnt}/g/../setuid", os.O_CREAT | os.O_WRONLY, 0o4755))`);
    expect(await sh(`stat -c %a ${m.mnt}/setuid`)).toBe("4755\n");
    expect(count("create (loop)") - loop).toBe(0);
    expect(count("create") - toJs).toBe(2);
  });

  it("shows a change behind the mount after a create the loop answered in the same directory", async () => {
    await sh(`mkdir ${m.mnt}/r && echo local > ${m.mnt}/r/a`);
    await m.mount.flushAll();
    m.mirror.vfs.writeFile("/r/remote", "from the DO\n");
    await m.mount.invalidate(["/r/remote"]);
    expect(await sh(`ls ${m.mnt}/r && cat ${m.mnt}/r/remote`)).toBe("a\nremote\nfrom the DO\n");
    const loop = count("create (loop)");
    await sh(`echo after > ${m.mnt}/r/b`);
    expect(await sh(`ls ${m.mnt}/r && cat ${m.mnt}/r/b`)).toBe("a\nb\nremote\nafter\n");
    expect(count("create (loop)") - loop).toBeLessThanOrEqual(1);
  });
});
