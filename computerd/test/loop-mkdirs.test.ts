/**
 * Directories the FUSE loop makes (native/loop-changes.c mkdir_here): a new directory whose name is
 * certainly missing is answered without JS, with the number, owner, mode and times the mirror
 * then has, its parent gaining a link dated by it; the loop holds it empty, so the files made in
 * it next are answered by the loop too. Where JS's answer is not certain (a setgid parent, the
 * loop's changes held), JS answers as before.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("mkdirs answered by the FUSE loop", { prefix: "computerd-mkdirs-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;

  it("makes the directory JS would: number, owner, mode and times, its parent dated and linked", async () => {
    await sh(`mkdir ${m.mnt}/p && ls ${m.mnt}/p`);
    const [loop, toJs] = [count("mkdir (loop)"), count("mkdir")];
    const seen = await py(`os.umask(0o022)
os.mkdir("${m.mnt}/p/new", 0o777)
st = os.stat("${m.mnt}/p/new")
p = os.stat("${m.mnt}/p")
print(st.st_ino, oct(st.st_mode), st.st_uid, st.st_gid, st.st_nlink, st.st_ctime_ns, p.st_nlink, p.st_mtime_ns == st.st_ctime_ns)`);
    expect([count("mkdir (loop)") - loop, count("mkdir") - toJs]).toEqual([1, 0]);
    const [ino, mode, uid, gid, nlink, ctimeNs, parentLinks, dated] = (seen[0] ?? "").split(" ");
    expect([mode, uid, gid, nlink, parentLinks, dated]).toEqual(["0o40755", "0", "0", "2", "3", "True"]);
    await m.mount.flushAll();
    const made = m.mirror.vfs.stat("/p/new");
    expect(made).toMatchObject({ ino: Number(ino), type: "dir", mode: 0o755, uid: 0, gid: 0, nlink: 2 });
    expect(BigInt(made.ctime.sec) * 1_000_000_000n + BigInt(made.ctime.nsec)).toBe(BigInt(ctimeNs ?? 0));
    expect(m.mirror.vfs.stat("/p")).toMatchObject({ nlink: 3, mtime: made.ctime });
  });

  it("answers the files made in a directory it made, and a tree of them reaches the mirror whole", async () => {
    await sh(`mkdir ${m.mnt}/t && ls ${m.mnt}/t`);
    const [dirs, files] = [count("mkdir (loop)"), count("create (loop)")];
    await sh(`cd ${m.mnt}/t && for i in 1 2 3; do mkdir -p a$i/b/c && echo $i > a$i/b/c/f; done`);
    expect(count("mkdir (loop)") - dirs).toBe(9);
    expect(count("create (loop)") - files).toBe(3);
    expect(await sh(`cd ${m.mnt}/t && cat a*/b/c/f && find . | wc -l`)).toBe("1\n2\n3\n13\n");
    await m.mount.flushAll();
    expect(m.mirror.vfs.readText("/t/a2/b/c/f")).toBe("2\n");
    expect(m.mirror.vfs.stat("/t")).toMatchObject({ nlink: 5 });
  });

  it("a mkdir of a name taken fails with EEXIST, and a removed directory can be made again", async () => {
    await sh(`mkdir ${m.mnt}/x && ls ${m.mnt}/x`);
    const out = await py(`os.mkdir("${m.mnt}/x/d")
try:
    os.mkdir("${m.mnt}/x/d")
    print("made twice")
except FileExistsError:
    print("EEXIST")
os.rmdir("${m.mnt}/x/d")
os.mkdir("${m.mnt}/x/d")
print(sorted(os.listdir("${m.mnt}/x")))`);
    expect(out).toEqual(["EEXIST", "['d']"]);
    await m.mount.flushAll();
    expect(m.mirror.vfs.readdir("/x").entries.map((e) => e.name)).toEqual(["d"]);
  });

  it("leaves a setgid parent's mkdirs and those while the loop's changes are held to JS", async () => {
    await sh(`mkdir ${m.mnt}/g && chown 0:1234 ${m.mnt}/g && chmod 2775 ${m.mnt}/g && ls ${m.mnt}/g`);
    const [loop, toJs] = [count("mkdir (loop)"), count("mkdir")];
    await sh(`mkdir ${m.mnt}/g/inherits`);
    expect(await sh(`stat -c '%g %A' ${m.mnt}/g/inherits`)).toBe("1234 drwxr-sr-x\n");
    const release = m.mount.holdCreates();
    await sh(`mkdir ${m.mnt}/held`);
    release();
    expect([count("mkdir (loop)") - loop, count("mkdir") - toJs]).toEqual([0, 2]);
  });
});
