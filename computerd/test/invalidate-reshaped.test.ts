/**
 * Trees reshaped in the mirror behind the mount's back (what the sync client applies when the
 * Durable Object swapped two names with rename `exchange`, removed a tree, or put a file where
 * a directory was) show through a mount whose kernel caches held the old shape, once the
 * changed paths (old paths below a directory that is gone included) are invalidated. The mount
 * runs in this process; the shell that reads it runs in a child process.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";

describeFreshMount(
  "reshaped trees pushed into the mirror",
  { prefix: "computerd-exchange-", fuse: { attrTimeout: 30, entryTimeout: 30, negativeTimeout: 30 } },
  (m) => {
    /** The paths the mirror's feed recorded since `rev` (what a push of that change touches). */
    function changedSince(rev: number): string[] {
      return m.mirror.vfs.changes(String(rev)).changes.map((c) => c.path);
    }

    it("shows two swapped files", async () => {
      const dir = "files";
      await sh(`mkdir ${m.mnt}/${dir} && echo one > ${m.mnt}/${dir}/a && echo two > ${m.mnt}/${dir}/b`);
      expect(await sh(`cat ${m.mnt}/${dir}/a ${m.mnt}/${dir}/b`)).toBe("one\ntwo\n");
      await m.mount.flushAll();
      const rev = m.mirror.vfs.rev();
      m.mirror.vfs.rename(`/${dir}/a`, `/${dir}/b`, { exchange: true });
      await m.mount.invalidate(changedSince(rev));
      expect(await sh(`cat ${m.mnt}/${dir}/a ${m.mnt}/${dir}/b`)).toBe("two\none\n");
    });

    it("shows a directory swapped with a file in another directory", async () => {
      const [p, q] = ["p", "q"];
      await sh(`mkdir -p ${m.mnt}/${p}/dir/sub ${m.mnt}/${q} && echo deep > ${m.mnt}/${p}/dir/sub/f`);
      await sh(`echo flat > ${m.mnt}/${q}/file`);
      expect(
        await sh(`cat ${m.mnt}/${p}/dir/sub/f ${m.mnt}/${q}/file; stat -c '%F %h' ${m.mnt}/${p}/dir`),
      ).toBe("deep\nflat\ndirectory 3\n");
      await m.mount.flushAll();
      const rev = m.mirror.vfs.rev();
      m.mirror.vfs.rename(`/${p}/dir`, `/${q}/file`, { exchange: true });
      await m.mount.invalidate(changedSince(rev));
      expect(
        await sh(
          `cat ${m.mnt}/${q}/file/sub/f ${m.mnt}/${p}/dir; stat -c '%n %F %h' ${m.mnt}/${p} ${m.mnt}/${q} | sed 's|${m.mnt}/||'`,
        ),
      ).toBe(`deep\nflat\n${p} directory 2\n${q} directory 3\n`);
      expect(await sh(`ls ${m.mnt}/${p}/dir/sub 2>&1 >/dev/null | grep -c 'Not a directory'`)).toBe("1\n");
    });

    it("forgets a removed tree and one replaced by a file", async () => {
      const [gone, replaced] = ["gone", "replaced"];
      await sh(`mkdir -p ${m.mnt}/${gone}/sub ${m.mnt}/${replaced}/sub`);
      await sh(`echo x > ${m.mnt}/${gone}/sub/f; echo y > ${m.mnt}/${replaced}/sub/f`);
      expect(await sh(`cat ${m.mnt}/${gone}/sub/f ${m.mnt}/${replaced}/sub/f`)).toBe("x\ny\n");
      await m.mount.flushAll();
      const rev = m.mirror.vfs.rev();
      m.mirror.vfs.rm(`/${gone}`, { recursive: true });
      m.mirror.vfs.rm(`/${replaced}`, { recursive: true });
      m.mirror.vfs.writeFile(`/${replaced}`, "now a file\n");
      await m.mount.invalidate(changedSince(rev));
      expect(
        await sh(`ls ${m.mnt}/${gone} 2>&1 >/dev/null | grep -c 'No such'; cat ${m.mnt}/${replaced}`),
      ).toBe("1\nnow a file\n");
    });
  },
);
