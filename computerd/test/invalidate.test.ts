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
