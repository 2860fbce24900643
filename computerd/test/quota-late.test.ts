/**
 * A quota that arrives after the mount started (the Durable Object sends it over the link, and
 * again when it changes) holds for writes the FUSE loop answers without the JS thread: a write
 * run through a handle opened before, while the JS thread is busy, stops at the quota with
 * ENOSPC instead of being answered from room granted before and dropped at the store.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
    // The handle is opened (by JS) first; once the test has taken this thread, dd's 64 KiB
    // writes through it join the loop's write runs, which JS would only see afterwards.
    const go = join(mkdtempSync(join(tmpdir(), "computerd-quota-late-go-")), "go");
    const script = `exec 3>${m.mnt}/big; echo opened
while [ ! -e ${go} ]; do sleep 0.01; done
dd if=/dev/zero bs=64k count=100 2>&1 >&3; echo "dd exit $?"; exec 3>&-`;
    const child = spawn("sh", ["-c", script]);
    let out = "";
    const opened = new Promise<void>((resolve) =>
      child.stdout.on("data", (data: Buffer) => {
        out += data.toString();
        if (out.includes("opened")) resolve();
      }),
    );
    const exited = new Promise((resolve) => child.on("close", resolve));
    await opened;
    writeFileSync(go, "");
    busy(800);
    await exited;
    rmSync(dirname(go), { recursive: true, force: true });
    expect(out).toContain("No space left on device");
    expect(out).toContain("dd exit 1");
    await m.mount.flushAll();
    expect(m.mirror.vfs.stat("/big").size).toBe(QUOTA);
    expect(m.mirror.vfs.usage().usedBytes).toBe(QUOTA);
  });
});
