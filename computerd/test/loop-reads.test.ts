/**
 * Reads the FUSE loop answers from bytes it wrote itself (native/loop-contents.h, loop-changes.c
 * read_here): a small file a command just wrote is read back (git add, a build reading its own
 * output) without a trip through JS, with the bytes the mirror has and the atime relatime asks
 * for, stored in the mirror as the kernel shows it. Every way the bytes can change afterwards
 * (a write JS answers, a truncate, an append, an overwrite in place, a change from the Durable
 * Object) is read back as it is, never as the loop kept it.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("reads answered by the FUSE loop", { prefix: "computerd-reads-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;
  const nsOf = (t: { sec: number; nsec: number }) => BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);

  it("reads a file just written without JS, moving its atime as relatime says, in the mirror too", async () => {
    await sh(`mkdir ${m.mnt}/d && ls ${m.mnt}/d`);
    await sh(`echo hello > ${m.mnt}/d/f && stat ${m.mnt}/d/f > /dev/null`);
    const [loop, toJs] = [count("read (loop)"), count("read")];
    const seen = await py(`with open("${m.mnt}/d/f", "rb") as f: data = f.read()
st = os.stat("${m.mnt}/d/f")
print(data.decode().strip(), st.st_atime_ns > st.st_mtime_ns, st.st_atime_ns)
with open("${m.mnt}/d/f", "rb") as f: f.read()
print(os.stat("${m.mnt}/d/f").st_atime_ns == st.st_atime_ns)`);
    expect([count("read (loop)") - loop, count("read") - toJs]).toEqual([1, 0]);
    const [data, moved, atimeNs] = (seen[0] ?? "").split(" ");
    expect([data, moved, seen[1]]).toEqual(["hello", "True", "True"]);
    await m.mount.flushAll();
    expect(nsOf(m.mirror.vfs.stat("/d/f").atime)).toBe(BigInt(atimeNs ?? 0));
  });

  it("reads every change made after the loop kept the bytes as it is", async () => {
    await sh(`mkdir ${m.mnt}/c && ls ${m.mnt}/c`);
    const out = await sh(`cd ${m.mnt}/c
echo hello > f && cat f
printf HE | dd of=f conv=notrunc status=none && cat f
truncate -s 2 f && cat f && echo
echo more >> f && cat f
echo again > f && cat f
printf 'abc' > g && cat g && echo && python3 -c 'import os; fd = os.open("g", os.O_WRONLY); os.pwrite(fd, b"X", 1); os.close(fd)' && cat g && echo`);
    expect(out).toBe("hello\nHEllo\nHE\nHEmore\nagain\nabc\naXc\n");
    await m.mount.flushAll();
    expect(m.mirror.vfs.readText("/c/f")).toBe("again\n");
    expect(m.mirror.vfs.readText("/c/g")).toBe("aXc");
  });

  it("reads a change from the Durable Object, not the bytes it kept", async () => {
    await sh(`mkdir ${m.mnt}/r && ls ${m.mnt}/r && echo local > ${m.mnt}/r/f && cat ${m.mnt}/r/f`);
    await m.mount.flushAll();
    m.mirror.vfs.writeFile("/r/f", "remote\n");
    await m.mount.invalidate(["/r/f"]);
    expect(await sh(`cat ${m.mnt}/r/f`)).toBe("remote\n");
  });

  it("keeps a file written in pieces whole, and leaves big files to JS", async () => {
    await sh(`mkdir ${m.mnt}/p && ls ${m.mnt}/p && echo x > ${m.mnt}/p/other`);
    const loop = count("read (loop)");
    const out = await py(`fd = os.open("${m.mnt}/p/pieces", os.O_CREAT | os.O_WRONLY, 0o644)
for i in range(5):
    os.write(fd, (str(i) * 1000).encode())
    os.stat("${m.mnt}/p/other")
os.close(fd)
os.stat("${m.mnt}/p/pieces")
with open("${m.mnt}/p/pieces", "rb") as f: data = f.read()
print(len(data), data == b"".join((str(i) * 1000).encode() for i in range(5)))
with open("${m.mnt}/p/big", "wb") as f: f.write(b"b" * 100000)
os.stat("${m.mnt}/p/big")
with open("${m.mnt}/p/big", "rb") as f: print(f.read() == b"b" * 100000)`);
    expect(out).toEqual(["5000 True", "True"]);
    expect(count("read (loop)") - loop).toBe(1);
  });

  it("git adds and checks files a command just wrote", async () => {
    const loop = count("read (loop)");
    const out =
      await sh(`mkdir ${m.mnt}/g && cd ${m.mnt}/g && git init -q && for i in $(seq 1 50); do echo $i > f$i; done
git add -A && git -c user.email=a@b -c user.name=a commit -qm one && git fsck --strict 2>&1 && git show HEAD:f37`);
    expect(out).toBe("37\n");
    expect(count("read (loop)") - loop).toBeGreaterThan(25);
  });
});
