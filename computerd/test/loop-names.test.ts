/**
 * Lookup misses the FUSE loop answers (native/loop-names.h, fuse3-loop-names.ts): in a
 * directory whose names it holds, a name that does not exist is answered without JS, and a
 * name that does is never answered as missing — whichever request added it (create, mknod,
 * mkdir, symlink, link, rename), and a name created behind the mount once invalidate() told.
 * Positive entries live 0 s here, so the kernel asks the daemon at every path walk.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";
import { py } from "./python.ts";

describeFreshMount(
  "lookup misses answered by the FUSE loop",
  { prefix: "computerd-names-", fuse: { entryTimeout: 0 } },
  (m) => {
    const loopMisses = () => m.mount.counters["lookup (loop)"] ?? 0;

    it("answers a new file's misses in a directory made through the mount, an exclusive create's both", async () => {
      const before = loopMisses();
      await sh(`mkdir ${m.mnt}/new && cd ${m.mnt}/new && for i in 1 2 3 4 5; do echo $i > f$i; done`);
      expect(loopMisses() - before).toBe(5);
      const exclusive = loopMisses();
      // A cached miss, then the exclusive create's own lookup (the kernel asks again for it).
      await py(`assert not os.path.exists("${m.mnt}/new/excl")
fd = os.open("${m.mnt}/new/excl", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
os.close(fd)`);
      expect(loopMisses() - exclusive).toBe(2);
      expect(await sh(`cat ${m.mnt}/new/f3 ${m.mnt}/new/f5`)).toBe("3\n5\n");
    });

    it("finds every name a request added to a directory it holds", async () => {
      await sh(`mkdir ${m.mnt}/d && echo x > ${m.mnt}/outside && test ! -e ${m.mnt}/d/none`);
      const before = loopMisses();
      await sh(`cd ${m.mnt}/d && test ! -e none && echo 1 > f && ln f hard && ln -s f soft && mkfifo fifo \
&& mkdir sub && mv ../outside moved && echo t > t && mv t renamed && mv sub sub2`);
      expect(loopMisses() - before).toBeGreaterThan(0);
      // Each name is looked up again (entries live 0 s): none may be answered as missing.
      expect(
        await sh(`cd ${m.mnt}/d && ls -d f hard soft fifo sub2 moved renamed | wc -l; test -e t || echo t-gone; \
test -e sub || echo sub-gone; cat moved renamed`),
      ).toBe("7\nt-gone\nsub-gone\nx\nt\n");
    });

    it("finds a name again after it was removed and made anew, and in a directory made again", async () => {
      await sh(
        `mkdir ${m.mnt}/again && cd ${m.mnt}/again && echo 1 > f && rm f && test ! -e f && echo 2 > f`,
      );
      await sh(`rmdir ${m.mnt}/d/sub2 && mkdir ${m.mnt}/d/sub2 && echo 3 > ${m.mnt}/d/sub2/g`);
      expect(await sh(`cat ${m.mnt}/again/f ${m.mnt}/d/sub2/g`)).toBe("2\n3\n");
    });

    it("sees a name created behind the mount once invalidate() told, and leaves long names to JS", async () => {
      await sh(`mkdir ${m.mnt}/r && test ! -e ${m.mnt}/r/remote`);
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/r/remote", "from the DO\n");
      await m.mount.invalidate(["/r/remote"]);
      expect(await sh(`cat ${m.mnt}/r/remote`)).toBe("from the DO\n");
      const long = "a".repeat(300);
      expect(await sh(`stat ${m.mnt}/r/${long} 2>&1 | grep -c 'File name too long'; true`)).toBe("1\n");
    });
  },
);
