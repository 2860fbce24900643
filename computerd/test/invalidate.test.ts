/**
 * Changes made to the mirror behind the mount's back (what the sync client does
 * when the Durable Object pushes) become visible through the mount after
 * invalidate(): new, changed and deleted files, at the top level and deep down.
 * The mount runs in this process; everything that touches it runs in child
 * processes, asynchronously, so the daemon's thread stays free to answer.
 * Runs for both FUSE backends (fuse3 only when its addon is built).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Mirror } from "../src/mirror/open-mirror.ts";
import type { Mount } from "../src/mount/backend.ts";
import { FUSE_BACKENDS, mountFreshMirror, sh } from "./mounted-mirror.ts";

for (const { backend, available } of FUSE_BACKENDS) {
  describe.skipIf(!canRun(`invalidate() through the ${backend} mount`, missingFuse()) || !available)(
    `invalidate() after changes pushed into the mirror (${backend})`,
    () => {
      let mirror: Mirror;
      let mount: Mount;
      let mnt: string;
      let close: (() => Promise<void>) | undefined;

      beforeAll(async () => {
        ({ mirror, mount, mnt, close } = await mountFreshMirror({
          backend,
          prefix: "computerd-invalidate-",
          fuse: { attrTimeout: 30, entryTimeout: 30, negativeTimeout: 30 },
        }));
      });

      afterAll(() => close?.());

      it("shows a changed top-level file, a new one and a deleted one (soft)", async () => {
        await sh(
          `echo one > ${mnt}/top; echo gone > ${mnt}/old; cat ${mnt}/top ${mnt}/old; ls ${mnt}/new 2>/dev/null; true`,
        );
        await mount.flushAll();
        mirror.vfs.writeFile("/top", "second version\n");
        mirror.vfs.writeFile("/new", "created remotely\n");
        mirror.vfs.unlink("/old");
        await mount.invalidate(["/top", "/new", "/old"]);
        expect(await sh(`cat ${mnt}/top ${mnt}/new; ls ${mnt}/old 2>&1 >/dev/null | grep -c 'No such'`)).toBe(
          "second version\ncreated remotely\n1\n",
        );
      });

      it("shows changes deep in a tree after a hard invalidation", async () => {
        await sh(
          `mkdir -p ${mnt}/proj/src/lib && echo v1 > ${mnt}/proj/src/lib/a.txt && cat ${mnt}/proj/src/lib/a.txt; ls ${mnt}/proj/src/lib/b.txt 2>/dev/null; true`,
        );
        await mount.flushAll();
        mirror.vfs.writeFile("/proj/src/lib/a.txt", "v2 is longer\n");
        mirror.vfs.writeFile("/proj/src/lib/b.txt", "new\n");
        await mount.invalidate(["/proj/src/lib/a.txt", "/proj/src/lib/b.txt"], { hard: true });
        expect(await sh(`cat ${mnt}/proj/src/lib/a.txt ${mnt}/proj/src/lib/b.txt`)).toBe(
          "v2 is longer\nnew\n",
        );
      });

      it("keeps a command's working directory usable across a soft invalidation", async () => {
        await sh(`mkdir -p ${mnt}/work && echo 1 > ${mnt}/work/f`);
        // The command signals once it is inside the directory, then waits for the go.
        const signals = mkdtempSync(join(tmpdir(), "computerd-invalidate-"));
        const running = sh(
          `cd ${mnt}/work && : > ${signals}/inside && while [ ! -e ${signals}/go ]; do sleep 0.01; done && pwd -P && cat f`,
        );
        await vi.waitFor(() => expect(existsSync(`${signals}/inside`)).toBe(true), { timeout: 10_000 });
        await mount.flushAll();
        mirror.vfs.writeFile("/work/f", "22\n");
        await mount.invalidate(["/work/f"]);
        writeFileSync(`${signals}/go`, "");
        expect(await running).toBe(`${mnt}/work\n22\n`);
        rmSync(signals, { recursive: true, force: true });
      });
    },
  );
}
