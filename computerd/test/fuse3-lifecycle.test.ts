/**
 * The fuse3 addon's session lifecycle: mounting and unmounting many times leaves no
 * descriptor, thread or mount behind; unmount returns while a process still holds a file
 * open in the mount; kernel notifications racing an unmount resolve. Runs in this process
 * (the mount is served by the JS thread while the test's file calls run on libuv's pool).
 */

import { mkdtempSync, readdirSync } from "node:fs";
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mirror, openMirror } from "../src/mirror/open-mirror.ts";
import { type Mount, openMount } from "../src/mount/backend.ts";
import { fuse3OptionString } from "../src/mount/fuse3-backend.ts";
import { loadFuse3, OP, type RequestHandle, type RequestListener } from "../src/mount/fuse3-native.ts";
import { fuse3Listener } from "../src/mount/fuse3-ops.ts";
import { LocalFs } from "../src/mount/local-fs.ts";
import { fuseMountsAt } from "../src/mount/stale.ts";
import { fuse3Mountable } from "./mounted-mirror.ts";

const usable = canRun("the fuse3 session lifecycle", missingFuse()) && fuse3Mountable;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const fds = () => readdirSync("/proc/self/fd").length;
const threads = () => readdirSync("/proc/self/task").length;

describe.skipIf(!usable)("fuse3 session lifecycle", () => {
  let root: string;
  let mirror: Mirror;
  let mountPoint: string;
  /** The mount a failed test may have left: never touch it synchronously from this thread. */
  let live: Mount | undefined;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "computerd-fuse3-life-"));
    mirror = openMirror(join(root, "state"));
    mountPoint = join(root, "mnt");
  });

  afterAll(async () => {
    await live?.unmount();
    mirror?.close();
    await rm(root, { recursive: true, force: true });
  });

  async function cycle(i: number): Promise<void> {
    const mount = await openMount({ backend: "fuse3", mirror, mountPoint, log: () => {} });
    live = mount;
    await mkdir(join(mountPoint, `d${i}`));
    await writeFile(join(mountPoint, `d${i}`, "f"), `cycle ${i}`);
    expect(await readFile(join(mountPoint, `d${i}`, "f"), "utf8")).toBe(`cycle ${i}`);
    expect(await readdir(mountPoint)).toContain(`d${i}`);
    mirror.vfs.writeFile(`/d${i}/pushed`, "x");
    await mount.invalidate([`/d${i}/pushed`, `/d${i}`]);
    expect((await stat(join(mountPoint, `d${i}`, "pushed"))).size).toBe(1);
    await mount.unmount();
    expect(await fuseMountsAt(mountPoint)).toEqual([]);
  }

  it("mounts and unmounts 20 times without leaking descriptors, threads or mounts", async () => {
    // The first cycles start libuv's pool threads and load the addon: not leaks.
    await cycle(0);
    await cycle(1);
    // The mirror's checkpoint thread opens the WAL at its first checkpoint: not a leak either.
    mirror.sql.commit();
    await mirror.checkpoints?.idle();
    const before = { fds: fds(), threads: threads() };
    for (let i = 2; i < 22; i++) await cycle(i);
    await mirror.checkpoints?.idle();
    expect({ fds: fds(), threads: threads() }).toEqual(before);
    expect(mirror.vfs.readText("/d21/f")).toBe("cycle 21");
  });

  it("unmounts while a file in the mount is still open, and the next mount serves", async () => {
    const before = { fds: fds(), threads: threads() };
    const mount = await openMount({ backend: "fuse3", mirror, mountPoint, log: () => {} });
    live = mount;
    const handle = await open(join(mountPoint, "held"), "w+");
    await handle.write("held open");
    const started = Date.now();
    await mount.unmount();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await fuseMountsAt(mountPoint)).toEqual([]);
    await handle.close().catch(() => {});
    await cycle(22);
    expect({ fds: fds(), threads: threads() }).toEqual(before);
  });

  it("answers a request held past unmount and destroy without touching a freed session", async () => {
    const addon = loadFuse3();
    if (!addon) throw new Error("addon");
    const fs = new LocalFs(mirror.vfs, { commit: () => mirror.sql.commit(), log: () => {} });
    let exited: () => void = () => {};
    const exit = new Promise<void>((resolve) => {
      exited = resolve;
    });
    const timeouts = { entryTimeout: 1, attrTimeout: 1, negativeTimeout: 1, pageCache: "auto" as const };
    const { listener } = fuse3Listener(
      addon,
      fs,
      () => {},
      {},
      timeouts,
      () => exited(),
    );
    let held: RequestHandle | undefined;
    let heldSeen: () => void = () => {};
    const seen = new Promise<void>((resolve) => {
      heldSeen = resolve;
    });
    // Holds the lookup of "late" unanswered, as an asynchronous handler would.
    const holding: RequestListener = (op, req, ...rest) => {
      if (op === OP.lookup && rest[5] === "late" && req) {
        held = req;
        heldSeen();
        return;
      }
      listener(op, req, ...rest);
    };
    const session = addon.mount(mountPoint, fuse3OptionString({ allowOther: true, debug: false }), holding);
    const lookup = stat(join(mountPoint, "late")).then(
      () => "answered",
      (err: NodeJS.ErrnoException) => err.code,
    );
    await seen;
    addon.unmount(session);
    while (!(await Promise.race([exit.then(() => true), sleep(50).then(() => false)])))
      addon.unmount(session);
    addon.destroy(session);
    // The kernel gave up on the request when the connection closed; the late answer fails cleanly.
    expect(await lookup).toMatch(/^E/);
    expect(held).toBeDefined();
    if (held) expect(addon.replyErr(held, 2)).toBeLessThan(0);
    fs.stop();
    expect(await fuseMountsAt(mountPoint)).toEqual([]);
  });
});
