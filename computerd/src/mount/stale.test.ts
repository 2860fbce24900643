import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mountsAt, parseMountInfo } from "./stale.ts";

describe("parseMountInfo", () => {
  it("reads mount points, types and sources, undoing octal escapes", () => {
    const text = [
      "22 1 0:21 / /proc rw,nosuid shared:5 - proc proc rw",
      "90 30 0:45 / /tmp/with\\040space rw,nosuid,nodev,relatime shared:50 - fuse.computerd computer rw,user_id=0",
      "91 30 0:46 / /work/mnt rw - fuse /dev/fuse rw",
      "",
    ].join("\n");
    expect(parseMountInfo(text)).toEqual([
      { mountPoint: "/proc", fsType: "proc", source: "proc" },
      { mountPoint: "/tmp/with space", fsType: "fuse.computerd", source: "computer" },
      { mountPoint: "/work/mnt", fsType: "fuse", source: "/dev/fuse" },
    ]);
  });
});

describe("mountsAt", () => {
  it("finds a mount of any type, also through a symlinked parent, and none where nothing is mounted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "computerd-stale-"));
    try {
      symlinkSync("/", join(dir, "root"));
      expect((await mountsAt("/proc")).map((m) => m.fsType)).toContain("proc");
      expect((await mountsAt(join(dir, "root", "proc"))).map((m) => m.fsType)).toContain("proc");
      expect(await mountsAt(dir)).toEqual([]);
      expect(await mountsAt(join(dir, "missing", "deeper"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
