/**
 * A fuse3 mount turns the kernel's `fuse.wake_here` on where the kernel has it
 * (src/mount/kernel-wake-here.ts), and leaves it alone when told to. The parameter is the
 * host's: the suite puts back what it found.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { afterAll, describe, expect, it } from "vitest";
import { WAKE_HERE_PARAMETER } from "../src/mount/kernel-wake-here.ts";
import { fuse3Mountable, mountFreshMirror } from "./mounted-mirror.ts";

const usable = canRun("the kernel's fuse.wake_here at mount", missingFuse()) && fuse3Mountable;
const present = existsSync(WAKE_HERE_PARAMETER);
const read = () => readFileSync(WAKE_HERE_PARAMETER, "utf8").trim();

describe.skipIf(!usable)("the kernel's fuse.wake_here at mount", () => {
  const found = present ? read() : undefined;
  afterAll(() => {
    if (found !== undefined) writeFileSync(WAKE_HERE_PARAMETER, found);
  });

  it("turns the parameter on before mounting, where the kernel has it", async () => {
    if (present) writeFileSync(WAKE_HERE_PARAMETER, "N");
    const mounted = await mountFreshMirror({ prefix: "computerd-wake-here-" });
    try {
      expect(mounted.mount.wakeHere).toBe(present ? "turned on" : "absent");
      if (present) expect(read()).toBe("Y");
    } finally {
      await mounted.close();
    }
  });

  it("leaves it alone when the tuning says so", async () => {
    if (present) writeFileSync(WAKE_HERE_PARAMETER, "N");
    const mounted = await mountFreshMirror({ prefix: "computerd-wake-here-", fuse: { wakeHere: false } });
    try {
      expect(mounted.mount.wakeHere).toBeUndefined();
      expect(present ? read() : existsSync(WAKE_HERE_PARAMETER)).toBe(present ? "N" : false);
    } finally {
      await mounted.close();
    }
  });
});
