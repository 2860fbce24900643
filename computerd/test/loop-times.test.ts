/**
 * Setattrs of times the FUSE loop answers (native/loop-changes.c times_here): `touch` of a file
 * just created or already there, and an explicit utimensat, are answered without JS when the
 * loop holds the file's attributes, and the mirror ends as JS's own setattr leaves it: the times
 * asked for ("now" by the loop's clock), the ctime the kernel saw, to the nanosecond; a time not
 * asked for stays. Everything else a setattr sets (a mode, an owner, a size) still goes to JS,
 * as does every setattr while the sync client holds the loop's changes.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount("setattrs of times answered by the FUSE loop", { prefix: "computerd-times-" }, (m) => {
  const count = (name: string) => m.mount.counters[name] ?? 0;
  const ns = (t: { sec: number; nsec: number }) =>
    (BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec)).toString();
  /** atime, mtime and ctime in ns as the mirror has them. */
  const mirrored = (path: string) => {
    const stat = m.mirror.vfs.stat(path);
    return [ns(stat.atime), ns(stat.mtime), ns(stat.ctime)].join(" ");
  };
  const seen = (path: string) =>
    `st = os.stat("${path}"); print(st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns)`;

  it("touch of a new file and of an old one waits for no JS; the mirror has the kernel's times", async () => {
    await sh(`mkdir ${m.mnt}/t && echo old > ${m.mnt}/t/old && stat ${m.mnt}/t/old > /dev/null`);
    const before = (await py(seen(`${m.mnt}/t/old`)))[0];
    const [loop, toJs] = [count("setattr (loop)"), count("setattr")];
    const out = await py(`import time
time.sleep(0.01)
for name in ["new", "old"]:
    fd = os.open("${m.mnt}/t/" + name, os.O_CREAT | os.O_WRONLY, 0o644); os.utime(fd); os.close(fd)
    ${seen(`${m.mnt}/t/" + name + "`)}`);
    expect([count("setattr (loop)") - loop, count("setattr") - toJs]).toEqual([2, 0]);
    const [fresh, touched] = out;
    const [atime, mtime, ctime] = (touched ?? "").split(" ");
    // "now" for both times, and the change's ctime: the same instant of the loop's clock.
    expect([atime === mtime, mtime === ctime, touched === before]).toEqual([true, true, false]);
    await m.mount.flushAll();
    expect(mirrored("/t/new")).toBe(fresh);
    expect(mirrored("/t/old")).toBe(touched);
    expect(m.mirror.vfs.readText("/t/old")).toBe("old\n");
  });

  it("sets explicit times exactly, and leaves a time not asked for as it was", async () => {
    await sh(
      `mkdir ${m.mnt}/e && echo x > ${m.mnt}/e/f && echo y > ${m.mnt}/e/g && ls -l ${m.mnt}/e > /dev/null`,
    );
    const [loop, toJs] = [count("setattr (loop)"), count("setattr")];
    const out = await py(`os.utime("${m.mnt}/e/f", ns=(1_000_000_123, 2_000_000_456))
${seen(`${m.mnt}/e/f`)}
before = os.stat("${m.mnt}/e/g")
os.system("touch -a ${m.mnt}/e/g")
${seen(`${m.mnt}/e/g`)}
print(os.stat("${m.mnt}/e/g").st_mtime_ns == before.st_mtime_ns)`);
    expect([count("setattr (loop)") - loop, count("setattr") - toJs]).toEqual([2, 0]);
    const [f, g, mtimeKept] = out;
    expect(f?.split(" ").slice(0, 2)).toEqual(["1000000123", "2000000456"]);
    expect(mtimeKept).toBe("True");
    await m.mount.flushAll();
    expect(mirrored("/e/f")).toBe(f);
    expect(mirrored("/e/g")).toBe(g);
  });

  it("a file written and dated before its close keeps its bytes and the times it was given", async () => {
    await sh(`mkdir ${m.mnt}/w && ls ${m.mnt}/w`);
    const out = await py(`fd = os.open("${m.mnt}/w/f", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"a" * 10000)
os.utime(fd, ns=(3_000_000_000, 4_000_000_000))
os.write(fd, b"b")
os.utime(fd, ns=(5_000_000_000, 6_000_000_000))
os.close(fd)
${seen(`${m.mnt}/w/f`)}`);
    expect(out[0]?.split(" ").slice(0, 2)).toEqual(["5000000000", "6000000000"]);
    expect(await sh(`wc -c < ${m.mnt}/w/f`)).toBe("10001\n");
    await m.mount.flushAll();
    expect(mirrored("/w/f")).toBe(out[0]);
    expect(m.mirror.vfs.readText("/w/f")).toBe(`${"a".repeat(10000)}b`);
  });

  it("a directory's times too; a mode or an owner still goes to JS", async () => {
    await sh(`mkdir ${m.mnt}/d && mkdir ${m.mnt}/d/sub && ls -l ${m.mnt}/d > /dev/null`);
    const [loop, toJs] = [count("setattr (loop)"), count("setattr")];
    const out = await py(`os.utime("${m.mnt}/d/sub", ns=(7_000_000_000, 8_000_000_000))
${seen(`${m.mnt}/d/sub`)}
os.chmod("${m.mnt}/d/sub", 0o700)
os.chown("${m.mnt}/d/sub", 1000, 1000)
${seen(`${m.mnt}/d/sub`)}`);
    expect([count("setattr (loop)") - loop, count("setattr") - toJs]).toEqual([1, 2]);
    await m.mount.flushAll();
    expect(out[0]?.split(" ").slice(0, 2)).toEqual(["7000000000", "8000000000"]);
    expect(mirrored("/d/sub")).toBe(out[1]);
    expect(m.mirror.vfs.stat("/d/sub")).toMatchObject({ mode: 0o700, uid: 1000, gid: 1000 });
  });

  it("answers no setattr while the sync client holds the loop's changes", async () => {
    await sh(`mkdir ${m.mnt}/h && echo a > ${m.mnt}/h/a && stat ${m.mnt}/h/a > /dev/null`);
    const release = m.mount.holdCreates();
    const [loop, toJs] = [count("setattr (loop)"), count("setattr")];
    await sh(`touch -d @100 ${m.mnt}/h/a`);
    release();
    await sh(`stat ${m.mnt}/h/a > /dev/null && touch -d @200 ${m.mnt}/h/a`);
    expect([count("setattr (loop)") - loop, count("setattr") - toJs]).toEqual([1, 1]);
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/h/a").mtime).toEqual({ sec: 200, nsec: 0 });
  });
});
