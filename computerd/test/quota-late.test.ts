/**
 * A quota that arrives after the mount started (the Durable Object sends it over the link, and
 * again when it changes) holds for writes the FUSE loop answers without the JS thread: a write
 * run through a handle opened before, while the JS thread is busy, stops at the quota with
 * ENOSPC instead of being answered from room granted before and dropped at the store.
 */

import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { describeFreshMount } from "./mounted-mirror.ts";

const MiB = 1024 * 1024;
const QUOTA = 4 * MiB;

/** Keeps this (the mount's JS) thread busy for `ms`: only the FUSE loop answers meanwhile. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describeFreshMount("a quota set after the mount started", { prefix: "computerd-quota-late-" }, (m) => {
  it("stops a writer the FUSE loop answers at the quota, while the JS thread is busy", async () => {
    m.mount.setQuota(QUOTA);
    m.mirror.sql.commit();
    // The handle is opened (by JS) first; dd's 64 KiB writes through it then join the loop's
    // write runs, which JS hands over later, while the test keeps this thread busy.
    const script = `exec 3>${m.mnt}/big; sleep 0.3
dd if=/dev/zero bs=64k count=100 2>&1 >&3; echo "dd exit $?"; exec 3>&-`;
    const child = spawn("sh", ["-c", script]);
    let out = "";
    child.stdout.on("data", (data: Buffer) => {
      out += data.toString();
    });
    const exited = new Promise((resolve) => child.on("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 150));
    busy(800);
    await exited;
    expect(out).toContain("No space left on device");
    expect(out).toContain("dd exit 1");
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/big").size).toBe(QUOTA);
    expect(m.mirror.vfs.usage().usedBytes).toBe(QUOTA);
  });
});
