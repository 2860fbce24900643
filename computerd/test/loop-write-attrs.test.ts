/**
 * Attributes the FUSE loop keeps through the writes it answers (native/fuse3.c
 * attrs_after_write): a small file just written is stat'ed, looked up and linked without a trip
 * through JS, and what the loop answered is exactly what the mirror holds once JS has the run —
 * size, blocks, and the write's time as mtime and ctime, to the nanosecond. A write that leaves
 * a hole, or a file past one write-back page, leaves its attributes to JS as before.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("attributes through the loop's writes", { prefix: "computerd-write-attrs-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;
  const nsOf = (t: { sec: number; nsec: number }) => BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);

  it("a file just written is stat'ed without JS, as the mirror then has it", async () => {
    await sh(`mkdir ${m.mnt}/s && ls ${m.mnt}/s`);
    const toJs = count("getattr");
    const seen = await py(`fd = os.open("${m.mnt}/s/f", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"x" * 700)
os.write(fd, b"y" * 700)
os.close(fd)
st = os.stat("${m.mnt}/s/f")
print(st.st_size, st.st_blocks, st.st_mtime_ns, st.st_ctime_ns)`);
    expect(count("getattr") - toJs).toBe(0);
    const [size, blocks, mtimeNs, ctimeNs] = (seen[0] ?? "").split(" ");
    expect([size, blocks]).toEqual(["1400", "3"]);
    expect(ctimeNs).toBe(mtimeNs);
    await m.mount.flushAll();
    const stored = m.mirror.vfs.stat("/s/f");
    expect(stored.size).toBe(1400);
    expect(nsOf(stored.mtime)).toBe(BigInt(mtimeNs ?? 0));
    expect(await sh(`stat -c '%s %b %.9Y' ${m.mnt}/s/f`)).toBe(
      `1400 3 ${stored.mtime.sec}.${String(stored.mtime.nsec).padStart(9, "0")}\n`,
    );
  });

  it("a file just written is linked without JS (git's objects), its bytes whole under the new name", async () => {
    await sh(`mkdir -p ${m.mnt}/o/ab && ls ${m.mnt}/o/ab`);
    const [loop, toJs] = [count("link (loop)"), count("link")];
    await sh(
      `cd ${m.mnt}/o/ab && for i in $(seq 1 100); do echo "object $i" > tmp_$i && ln tmp_$i obj_$i && rm tmp_$i; done`,
    );
    expect(count("link (loop)") - loop).toBeGreaterThan(90);
    expect(count("link (loop)") - loop + count("link") - toJs).toBe(100);
    expect(await sh(`cd ${m.mnt}/o/ab && cat obj_1 obj_100 && stat -c '%h %s' obj_50`)).toBe(
      "object 1\nobject 100\n1 10\n",
    );
    await m.mount.flushAll();
    expect(m.mirror.vfs.readText("/o/ab/obj_42")).toBe("object 42\n");
    const [kernel] = await py(`st = os.stat("${m.mnt}/o/ab/obj_42")
print(st.st_mtime_ns, st.st_ctime_ns, st.st_nlink)`);
    const stored = m.mirror.vfs.stat("/o/ab/obj_42");
    expect(kernel).toBe(`${nsOf(stored.mtime)} ${nsOf(stored.ctime)} 1`);
  });

  it("a write past the end (a hole) and a file past one page show their attributes as JS has them", async () => {
    await sh(`mkdir ${m.mnt}/h && ls ${m.mnt}/h`);
    await py(`fd = os.open("${m.mnt}/h/hole", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"a")
os.pwrite(fd, b"b", 10000)
os.close(fd)
os.stat("${m.mnt}/h/hole")
with open("${m.mnt}/h/big", "wb") as f:
    for i in range(40): f.write(b"z" * 32768)
os.stat("${m.mnt}/h/big")`);
    expect(await sh(`stat -c '%s' ${m.mnt}/h/hole ${m.mnt}/h/big`)).toBe("10001\n1310720\n");
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/h/big").size).toBe(1310720);
    const [kernel] = await py(`st = os.stat("${m.mnt}/h/hole")
print(st.st_size, st.st_blocks, st.st_mtime_ns)`);
    const hole = m.mirror.vfs.stat("/h/hole");
    expect(kernel).toBe(`10001 ${Math.ceil(hole.allocated / 512)} ${nsOf(hole.mtime)}`);
  });
});
