/**
 * Lookups of names found, answered by the FUSE loop (native/loop-entries.h,
 * fuse3-loop-entries.ts): the kernel asks again for a name it holds at every exclusive mkdir
 * (npm's extraction makes each file's directory again), and the loop answers it without JS; a
 * name removed, renamed or replaced, through the mount or behind it, is never answered as it was.
 */
import { expect, it } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";

describeFreshMount(
  "lookups of names found, answered by the FUSE loop",
  { prefix: "computerd-entries-" },
  (m) => {
    const counter = (name: string) => m.mount.counters[name] ?? 0;

    it("answers the lookup of an existing directory at each mkdir of it", async () => {
      await sh(`mkdir -p ${m.mnt}/pkg/lib`);
      const [found, toJs] = [counter("lookup_found"), counter("lookup")];
      await sh(`cd ${m.mnt}/pkg && for i in $(seq 1 20); do mkdir lib 2>/dev/null && exit 1; done; true`);
      expect(counter("lookup_found") - found).toBe(20);
      expect(counter("lookup") - toJs).toBe(0);
    });
  },
);

describeFreshMount(
  "names found that change, answered by the FUSE loop",
  { prefix: "computerd-entries-live-", fuse: { entryTimeout: 0 } },
  (m) => {
    // Entries live 0 s here: the kernel asks at every path walk, and the loop answers what it holds.
    const found = () => m.mount.counters.lookup_found ?? 0;

    it("never answers a name as it was once it was renamed, removed or replaced", async () => {
      await sh(`mkdir ${m.mnt}/d && echo 1 > ${m.mnt}/d/f && cat ${m.mnt}/d/f`);
      const before = found();
      expect(
        await sh(`cd ${m.mnt}/d && cat f && mv f g && { test -e f && echo f-stays; true; } && echo 2 > f && cat f g \
&& rm f && mkdir f && test -d f && rmdir f && ln g h && rm g && cat h && exec 3<h && rm h && { test -e h && echo h-stays; true; } \
&& cat <&3 && echo 3 > x && mv x h && cat h`),
      ).toBe("1\n2\n1\n1\n1\n3\n");
      expect(found() - before).toBeGreaterThan(0);
    });

    it("sees what replaced a name behind the mount once invalidate() told", async () => {
      await sh(`mkdir ${m.mnt}/r && echo local > ${m.mnt}/r/n && cat ${m.mnt}/r/n`);
      await m.mount.flushAll();
      m.mirror.vfs.unlink("/r/n");
      m.mirror.vfs.mkdir("/r/n");
      m.mirror.vfs.writeFile("/r/n/inside", "from the DO\n");
      await m.mount.invalidate(["/r/n", "/r/n/inside"]);
      expect(await sh(`test -d ${m.mnt}/r/n && cat ${m.mnt}/r/n/inside`)).toBe("from the DO\n");
    });
  },
);
