/**
 * Changes made to the mirror behind the mount's back (what the sync client does
 * when the Durable Object pushes) become visible through the mount after
 * invalidate(): new, changed and deleted files, at the top level and deep down.
 * The mount runs in this process; everything that touches it runs in child
 * processes, asynchronously, so the daemon's thread stays free to answer.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { describeFreshMount, sh } from "./mounted-mirror.ts";

describeFreshMount(
  "invalidate() after changes pushed into the mirror",
  { prefix: "computerd-invalidate-", fuse: { attrTimeout: 30, entryTimeout: 30, negativeTimeout: 30 } },
  (m) => {
    it("shows a changed top-level file, a new one and a deleted one", async () => {
      await sh(
        `echo one > ${m.mnt}/top; echo gone > ${m.mnt}/old; cat ${m.mnt}/top ${m.mnt}/old; ls ${m.mnt}/new 2>/dev/null; true`,
      );
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/top", "second version\n");
      m.mirror.vfs.writeFile("/new", "created remotely\n");
      m.mirror.vfs.unlink("/old");
      await m.mount.invalidate(["/top", "/new", "/old"]);
      expect(
        await sh(`cat ${m.mnt}/top ${m.mnt}/new; ls ${m.mnt}/old 2>&1 >/dev/null | grep -c 'No such'`),
      ).toBe("second version\ncreated remotely\n1\n");
    });

    it("shows changes deep in a tree", async () => {
      await sh(
        `mkdir -p ${m.mnt}/proj/src/lib && echo v1 > ${m.mnt}/proj/src/lib/a.txt && cat ${m.mnt}/proj/src/lib/a.txt; ls ${m.mnt}/proj/src/lib/b.txt 2>/dev/null; true`,
      );
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/proj/src/lib/a.txt", "v2 is longer\n");
      m.mirror.vfs.writeFile("/proj/src/lib/b.txt", "new\n");
      await m.mount.invalidate(["/proj/src/lib/a.txt", "/proj/src/lib/b.txt"]);
      expect(await sh(`cat ${m.mnt}/proj/src/lib/a.txt ${m.mnt}/proj/src/lib/b.txt`)).toBe(
        "v2 is longer\nnew\n",
      );
    });

    it("keeps a command's working directory usable across an invalidation", async () => {
      await sh(`mkdir -p ${m.mnt}/work && echo 1 > ${m.mnt}/work/f`);
      // The command signals once it is inside the directory, then waits for the go.
      const signals = mkdtempSync(join(tmpdir(), "computerd-invalidate-"));
      const running = sh(
        `cd ${m.mnt}/work && : > ${signals}/inside && while [ ! -e ${signals}/go ]; do sleep 0.01; done && pwd -P && cat f`,
      );
      await vi.waitFor(() => expect(existsSync(`${signals}/inside`)).toBe(true), { timeout: 10_000 });
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/work/f", "22\n");
      await m.mount.invalidate(["/work/f"]);
      writeFileSync(`${signals}/go`, "");
      expect(await running).toBe(`${m.mnt}/work\n22\n`);
      rmSync(signals, { recursive: true, force: true });
    });
  },
);

describeFreshMount(
  "invalidate() with the mount's own cache lifetimes (names, listings and attributes kept a minute)",
  { prefix: "computerd-invalidate-kept-" },
  (m) => {
    it("never answers a stat with attributes from before a remote change", async () => {
      await sh(`echo one > ${m.mnt}/f && mkdir ${m.mnt}/dir && stat -c '%s %a %h' ${m.mnt}/f ${m.mnt}/dir`);
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/f", "a longer second version\n");
      m.mirror.vfs.chmod("/f", 0o600);
      // Only the new directory is named: its parent's link count and times changed too.
      m.mirror.vfs.mkdir("/dir/sub");
      await m.mount.invalidate(["/f", "/dir/sub"]);
      expect(await sh(`stat -c '%s %a' ${m.mnt}/f; stat -c %h ${m.mnt}/dir`)).toBe("24 600\n3\n");
    });

    it("shows a remote change's size, mtime and bytes of a file a process holds open", async () => {
      // The kernel keeps the inode of an open file (and its cached size and times) across the
      // invalidation; with its writeback cache it would keep trusting its own size and mtime of
      // every regular file over the daemon's (fs/fuse/inode.c fuse_get_cache_mask), so this
      // shows the old ones (computerd/docs/mount.md, "Small writes and the writeback cache").
      await sh(`printf 'a first version, rather long\\n' > ${m.mnt}/held && stat -c '%s' ${m.mnt}/held`);
      const signals = mkdtempSync(join(tmpdir(), "computerd-invalidate-held-"));
      const holder = sh(
        `exec 3< ${m.mnt}/held && : > ${signals}/open && while [ ! -e ${signals}/go ]; do sleep 0.01; done && stat -L -c '%s %Y' /dev/fd/3 && cat <&3`,
      );
      await vi.waitFor(() => expect(existsSync(`${signals}/open`)).toBe(true), { timeout: 10_000 });
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/held", "short\n");
      m.mirror.vfs.utimes("/held", "omit", { sec: 1_000_000_000, nsec: 0 });
      await m.mount.invalidate(["/held"]);
      expect(await sh(`stat -c '%s %Y' ${m.mnt}/held && cat ${m.mnt}/held`)).toBe("6 1000000000\nshort\n");
      writeFileSync(`${signals}/go`, "");
      expect(await holder).toBe("6 1000000000\nshort\n");
      rmSync(signals, { recursive: true, force: true });
    });

    it("sees a name created, removed or renamed remotely although names and listings are kept", async () => {
      // The kernel keeps the listing it read (FOPEN_CACHE_DIR) and the miss of b.
      await sh(
        `mkdir -p ${m.mnt}/names && echo a > ${m.mnt}/names/a && ls ${m.mnt}/names; ls ${m.mnt}/names/b 2>/dev/null; true`,
      );
      await m.mount.flushAll();
      m.mirror.vfs.writeFile("/names/b", "new\n");
      m.mirror.vfs.rename("/names/a", "/names/c");
      await m.mount.invalidate(["/names/a", "/names/b", "/names/c"]);
      expect(await sh(`ls ${m.mnt}/names`)).toBe("b\nc\n");
      expect(
        await sh(
          `cat ${m.mnt}/names/b ${m.mnt}/names/c; ls ${m.mnt}/names/a 2>&1 >/dev/null | grep -c 'No such'`,
        ),
      ).toBe("new\na\n1\n");
    });
  },
);

describeFreshMount(
  "invalidate() while the loop answers getattrs (attributes kept 1 s by the kernel)",
  { prefix: "computerd-invalidate-loop-", fuse: { attrTimeout: 1 } },
  (m) => {
    it("never answers a stat from the loop's table with attributes from before a remote change", async () => {
      const stat = () => sh(`stat -c '%s %a' ${m.mnt}/f ${m.mnt}/dir`);
      await sh(`echo one > ${m.mnt}/f && mkdir ${m.mnt}/dir`);
      expect(await stat()).toBe("4 644\n0 755\n");
      await m.mount.flushAll();
      // Once the kernel's attributes (1 s) ran out, the loop answers its getattrs: what a
      // missed invalidation would leave stale.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const loopBefore = m.mount.counters["getattr (loop)"] ?? 0;
      expect(await stat()).toBe("4 644\n0 755\n");
      expect(m.mount.counters["getattr (loop)"] ?? 0).toBeGreaterThanOrEqual(loopBefore + 2);
      m.mirror.vfs.writeFile("/f", "a longer second version\n");
      m.mirror.vfs.chmod("/f", 0o600);
      m.mirror.vfs.mkdir("/dir/sub");
      await m.mount.invalidate(["/f", "/dir/sub"]);
      expect(await sh(`stat -c '%s %a' ${m.mnt}/f; stat -c %h ${m.mnt}/dir`)).toBe("24 600\n3\n");
    });
  },
);
