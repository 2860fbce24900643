import { describe, expect, it } from "vitest";
import { invalEntryMessage, invalRootMessage, topLevelNames } from "./kernel-notify.ts";

describe("kernel notifications", () => {
  it("lays out FUSE_NOTIFY_INVAL_ENTRY for a name under the root", () => {
    const msg = invalEntryMessage("proj", true);
    expect(msg.length).toBe(16 + 16 + 4 + 1);
    expect(msg.readUInt32LE(0)).toBe(msg.length);
    expect(msg.readInt32LE(4)).toBe(3);
    expect(msg.readBigUInt64LE(8)).toBe(0n);
    expect(msg.readBigUInt64LE(16)).toBe(1n);
    expect(msg.readUInt32LE(24)).toBe(4);
    expect(msg.readUInt32LE(28)).toBe(1);
    expect(msg.subarray(32, 36).toString()).toBe("proj");
    expect(msg[36]).toBe(0);
    expect(invalEntryMessage("proj", false).readUInt32LE(28)).toBe(0);
  });

  it("lays out FUSE_NOTIFY_INVAL_INODE for the root", () => {
    const msg = invalRootMessage();
    expect(msg.length).toBe(40);
    expect(msg.readInt32LE(4)).toBe(2);
    expect(msg.readBigUInt64LE(16)).toBe(1n);
  });

  it("maps changed paths to top-level names", () => {
    const { names, root } = topLevelNames(["/a/b/c", "/a/d", "/x", "/y/z"]);
    expect([...names].sort()).toEqual(["a", "x", "y"]);
    expect(root).toBe(true);
    expect(topLevelNames(["/deep/only/path"]).root).toBe(false);
    expect(topLevelNames(["/"]).root).toBe(true);
  });
});
