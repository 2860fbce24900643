/**
 * FUSE conformance: every script in conformance/ runs as root and as an unprivileged
 * user, against the computerd mount and against a tmpfs directory, and must print the
 * same output and exit the same way for each caller; a marker per caller proves it did
 * its real work. Then: statfs follows the quota; data written through the mount is in
 * the mirror after unmount and survives a remount; a killed daemon's stale mount is
 * cleared. The mount is computerd's own fuse3 addon. Skips (saying why) only when /dev/fuse is
 * absent; with /dev/fuse, a missing fuse3 addon fails the suite (mounted-mirror.ts).
 */

import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import {
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  stat,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { openNodeVfs } from "@computer/vfs/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIRROR_FILE, openMirror } from "../src/mirror/open-mirror.ts";
import { fuseMountsAt } from "../src/mount/stale.ts";
import { MARKERS } from "./conformance/markers.ts";
import {
  CALLERS,
  compilePosixHelper,
  packTinyPackage,
  runConformanceScript,
  SCRIPTS,
  stageScripts,
} from "./conformance/runner.ts";
import { type Daemon, startDaemon } from "./daemon.ts";
import { fuse3Mountable } from "./mounted-mirror.ts";

const run = promisify(execFile);
const scripts = readdirSync(SCRIPTS)
  .filter((name) => name.endsWith(".sh"))
  .sort();

/** computerd mount's flags: the default backend, named so the suite says what it tests. */
const FLAGS = ["--backend", "fuse3"];

/** Quota of the statfs daemon: 96 MiB, a whole number of 4 KiB blocks. */
const QUOTA = 96 << 20;

describe.skipIf(!canRun("FUSE conformance", missingFuse()) || !fuse3Mountable)(
  "FUSE conformance (computerd mount vs tmpfs)",
  () => {
    let root: string;
    let reference: string;
    let stateDir: string;
    let mountPoint: string;
    let daemon: Daemon;
    let env: Record<string, string>;
    let staged: string;

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "computerd-conformance-"));
      // The unprivileged caller must reach the mounts, the helper and the tarball.
      chmodSync(root, 0o755);
      const shm = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
      reference = mkdtempSync(join(shm, "computerd-reference-"));
      chmodSync(reference, 0o755);
      stateDir = join(root, "state");
      mountPoint = join(root, "mnt");
      env = { PKG_TGZ: await packTinyPackage(root), POSIX_HELPER: await compilePosixHelper(root) };
      staged = stageScripts(join(root, "scripts"));
      daemon = await startDaemon(stateDir, mountPoint, FLAGS);
    });

    afterAll(async () => {
      await daemon?.stop();
      rmSync(reference, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    });

    for (const script of scripts) {
      for (const caller of CALLERS) {
        it(`${script} as ${caller} behaves as on tmpfs`, async () => {
          const name = `${script.replace(/\.sh$/, "")}-${caller}`;
          const logged = daemon.stderr().length;
          const expected = await runConformanceScript(staged, script, reference, name, caller, env);
          const actual = await runConformanceScript(staged, script, mountPoint, name, caller, env);
          // Every error must reach the syscall as its own errno, never as a catch-all EIO.
          expect(daemon.stderr().slice(logged)).not.toContain("replying EIO");
          const markers = MARKERS[script]?.[caller];
          expect(markers, `no markers for ${script} as ${caller} (conformance/markers.ts)`).toBeDefined();
          for (const marker of markers ?? []) {
            expect(expected.stdout, `reference run:\n${expected.stderr}`).toContain(marker);
          }
          expect(
            { code: actual.code, stdout: actual.stdout },
            `stderr on the mount:\n${actual.stderr}`,
          ).toEqual({
            code: expected.code,
            stdout: expected.stdout,
          });
        });
      }
    }

    it("reports statfs capacity", async () => {
      const { stdout } = await run("stat", ["-f", "-c", "%b %S %l", mountPoint]);
      const [blocks, size, namemax] = stdout.trim().split(" ").map(Number);
      expect((blocks ?? 0) * (size ?? 0)).toBeGreaterThan(1 << 30);
      expect(namemax).toBe(255);
    });

    it("reports the quota as statfs capacity and the usage as used blocks", async () => {
      const quotaState = join(root, "state-quota");
      const seed = openMirror(quotaState);
      seed.vfs.setQuota(QUOTA);
      seed.sql.commit();
      seed.close();
      const quotaMount = join(root, "mnt-quota");
      const quotaDaemon = await startDaemon(quotaState, quotaMount, FLAGS);
      try {
        const statfs = async () => {
          const { stdout } = await run("stat", ["-f", "-c", "%b %f %a %S", quotaMount]);
          const [blocks = 0, free = 0, avail = 0, size = 0] = stdout.trim().split(" ").map(Number);
          return { total: blocks * size, free: free * size, avail: avail * size };
        };
        const empty = await statfs();
        expect(empty.total).toBe(QUOTA);
        expect(QUOTA - empty.free).toBeLessThan(64 << 10);
        await run("dd", ["if=/dev/urandom", `of=${quotaMount}/data`, "bs=1M", "count=40", "conv=fsync"]);
        const used = await statfs();
        expect(used.total).toBe(QUOTA);
        expect(empty.free - used.free).toBeGreaterThanOrEqual(40 << 20);
        expect(empty.free - used.free).toBeLessThan(41 << 20);
        expect(used.avail).toBe(used.free);
        const full = await run("dd", [
          "if=/dev/zero",
          `of=${quotaMount}/more`,
          "bs=1M",
          "count=80",
          "conv=fsync",
        ]).then(
          () => "written",
          (err: { stderr?: string }) => err.stderr ?? "",
        );
        expect(full).toContain("No space left on device");
      } finally {
        await quotaDaemon.stop();
      }
    });

    it("puts what was written into the mirror, and it survives unmount and remount", async () => {
      const dir = join(mountPoint, "persist");
      await mkdir(dir);
      const big = Buffer.alloc(5 * (1 << 20) + 123);
      for (let i = 0; i < big.length; i++) big[i] = (i * 7) % 251;
      await writeFile(join(dir, "big.bin"), big);
      await writeFile(join(dir, "small.txt"), "small\n");
      await symlink("small.txt", join(dir, "link"));
      await link(join(dir, "small.txt"), join(dir, "hard"));
      const before = await stat(join(dir, "big.bin"));

      const unmounted = await daemon.stop();
      expect(unmounted?.event).toBe("unmounted");
      expect(await fuseMountsAt(mountPoint)).toEqual([]);

      const vfs = openNodeVfs(join(stateDir, MIRROR_FILE));
      expect(Buffer.from(vfs.readFile("/persist/big.bin")).equals(big)).toBe(true);
      expect(vfs.readText("/persist/small.txt")).toBe("small\n");
      expect(vfs.readlink("/persist/link")).toBe("small.txt");
      expect(vfs.stat("/persist/hard").nlink).toBe(2);
      expect(vfs.stat("/persist/big.bin").ino).toBe(before.ino);

      daemon = await startDaemon(stateDir, mountPoint, FLAGS);
      expect((await readFile(join(dir, "big.bin"))).equals(big)).toBe(true);
      expect(await readFile(join(dir, "hard"), "utf8")).toBe("small\n");
      expect(await readlink(join(dir, "link"))).toBe("small.txt");
      const after = await stat(join(dir, "big.bin"));
      expect(after.ino).toBe(before.ino);
      expect(after.mtimeMs).toBe(before.mtimeMs);
    });

    it("clears the stale mount of a killed daemon", async () => {
      await writeFile(join(mountPoint, "before-kill"), "x");
      // A file unlinked while open when the daemon dies must not resurface under a hidden name.
      const orphan = await open(join(mountPoint, "orphan"), "w+");
      await orphan.write("unnamed");
      await unlink(join(mountPoint, "orphan"));
      await orphan.sync();
      await daemon.stop("SIGKILL");
      await orphan.close().catch(() => {});
      const stale = await lstat(mountPoint).then(
        () => "alive",
        (err: NodeJS.ErrnoException) => err.code,
      );
      expect(stale).toBe("ENOTCONN");
      daemon = await startDaemon(stateDir, mountPoint, FLAGS);
      expect((await stat(mountPoint)).ino).toBe(1);
      expect(await fuseMountsAt(mountPoint)).toHaveLength(1);
      const hidden = (await readdir(mountPoint)).filter((name) => name.startsWith(".fuse_hidden"));
      expect(hidden).toEqual([]);
    });
  },
);
