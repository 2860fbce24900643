/**
 * Trees reshaped in the mirror behind the mount's back (what the sync client applies when the
 * Durable Object swapped two names with rename `exchange`, removed a tree, or put a file where
 * a directory was) show through a mount whose kernel caches held the old shape, once the
 * changed paths (old paths below a directory that is gone included) are invalidated, soft and
 * hard. The mount runs in this process; the shell that reads it runs in a child process.
 * fuse3 only (fuse-native invalidates by path, without looking anything up).
 */
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mirror } from "../src/mirror/open-mirror.ts";
import type { Mount } from "../src/mount/backend.ts";
import { fuse3Mountable, mountFreshMirror, sh } from "./mounted-mirror.ts";

describe.skipIf(!canRun("reshaped trees through the fuse3 mount", missingFuse()) || !fuse3Mountable)(
  "reshaped trees pushed into the mirror (fuse3)",
  () => {
    let mirror: Mirror;
    let mount: Mount;
    let mnt: string;
    let close: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ mirror, mount, mnt, close } = await mountFreshMirror({
        backend: "fuse3",
        prefix: "computerd-exchange-",
        fuse: { attrTimeout: 30, entryTimeout: 30, negativeTimeout: 30 },
      }));
    });

    afterAll(() => close?.());

    /** The paths the mirror's feed recorded since `rev` (what a push of that change touches). */
    function changedSince(rev: number): string[] {
      return mirror.vfs.changes(String(rev)).changes.map((c) => c.path);
    }

    for (const hard of [false, true]) {
      it(`shows two swapped files (${hard ? "hard" : "soft"})`, async () => {
        const dir = `files-${hard}`;
        await sh(`mkdir ${mnt}/${dir} && echo one > ${mnt}/${dir}/a && echo two > ${mnt}/${dir}/b`);
        expect(await sh(`cat ${mnt}/${dir}/a ${mnt}/${dir}/b`)).toBe("one\ntwo\n");
        await mount.flushAll();
        const rev = mirror.vfs.rev();
        mirror.vfs.rename(`/${dir}/a`, `/${dir}/b`, { exchange: true });
        await mount.invalidate(changedSince(rev), { hard });
        expect(await sh(`cat ${mnt}/${dir}/a ${mnt}/${dir}/b`)).toBe("two\none\n");
      });

      it(`shows a directory swapped with a file in another directory (${hard ? "hard" : "soft"})`, async () => {
        const [p, q] = [`p-${hard}`, `q-${hard}`];
        await sh(`mkdir -p ${mnt}/${p}/dir/sub ${mnt}/${q} && echo deep > ${mnt}/${p}/dir/sub/f`);
        await sh(`echo flat > ${mnt}/${q}/file`);
        expect(await sh(`cat ${mnt}/${p}/dir/sub/f ${mnt}/${q}/file; stat -c '%F %h' ${mnt}/${p}/dir`)).toBe(
          "deep\nflat\ndirectory 3\n",
        );
        await mount.flushAll();
        const rev = mirror.vfs.rev();
        mirror.vfs.rename(`/${p}/dir`, `/${q}/file`, { exchange: true });
        await mount.invalidate(changedSince(rev), { hard });
        expect(
          await sh(
            `cat ${mnt}/${q}/file/sub/f ${mnt}/${p}/dir; stat -c '%n %F %h' ${mnt}/${p} ${mnt}/${q} | sed 's|${mnt}/||'`,
          ),
        ).toBe(`deep\nflat\n${p} directory 2\n${q} directory 3\n`);
        expect(await sh(`ls ${mnt}/${p}/dir/sub 2>&1 >/dev/null | grep -c 'Not a directory'`)).toBe("1\n");
      });

      it(`forgets a removed tree and one replaced by a file (${hard ? "hard" : "soft"})`, async () => {
        const [gone, replaced] = [`gone-${hard}`, `replaced-${hard}`];
        await sh(`mkdir -p ${mnt}/${gone}/sub ${mnt}/${replaced}/sub`);
        await sh(`echo x > ${mnt}/${gone}/sub/f; echo y > ${mnt}/${replaced}/sub/f`);
        expect(await sh(`cat ${mnt}/${gone}/sub/f ${mnt}/${replaced}/sub/f`)).toBe("x\ny\n");
        await mount.flushAll();
        const rev = mirror.vfs.rev();
        mirror.vfs.rm(`/${gone}`, { recursive: true });
        mirror.vfs.rm(`/${replaced}`, { recursive: true });
        mirror.vfs.writeFile(`/${replaced}`, "now a file\n");
        await mount.invalidate(changedSince(rev), { hard });
        expect(
          await sh(`ls ${mnt}/${gone} 2>&1 >/dev/null | grep -c 'No such'; cat ${mnt}/${replaced}`),
        ).toBe("1\nnow a file\n");
      });
    }
  },
);
