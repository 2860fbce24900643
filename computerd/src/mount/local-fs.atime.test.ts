import type { Timespec } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestLocalFs } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { LocalFs } from "./local-fs.ts";
import { atimeWriter } from "./relatime.ts";
import { now as writeBackClock } from "./write-back.ts";

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;
/** A fixed clock the tests move; undefined: the write-back's real clock. */
let clock: Timespec | undefined;

beforeEach(() => {
  clock = { sec: 4_000_000_000, nsec: 0 };
  ({ mirror, fs, close } = openTestLocalFs("computerd-atime-", (opened) => ({
    storeAtime: atimeWriter(opened),
    now: () => clock ?? writeBackClock(),
  })));
});

afterEach(() => close());

function later(sec: number): Timespec {
  clock = { sec: (clock?.sec ?? 0) + sec, nsec: 0 };
  return clock;
}

describe("LocalFs.accessed (relatime)", () => {
  it("updates atime after a change, in the cache and in the mirror, and not again until the next change", () => {
    mirror.vfs.writeFile("/f", "data");
    const ino = fs.stat("/f").ino;
    const ctime = fs.stat("/f").ctime;
    const first = later(1);
    expect(fs.accessDue(ino, "/f")).toBe(true);
    fs.accessed(ino, "/f");
    expect(fs.stat("/f").atime).toEqual(first);
    expect(fs.stat("/f").ctime).toEqual(ctime);
    expect(mirror.vfs.lstat("/f").atime).toEqual(first);
    later(60);
    expect(fs.accessDue(ino, "/f")).toBe(false);
    fs.accessed(ino, "/f");
    expect(mirror.vfs.lstat("/f").atime).toEqual(first);
  });

  it("updates an atime set in the past by utimens (ctime moved past it) and one a day old", () => {
    mirror.vfs.writeFile("/f", "data");
    const ino = fs.stat("/f").ino;
    later(1);
    fs.utimens("/f", { sec: 1000, nsec: 0 }, "omit");
    const now = later(1);
    fs.accessed(ino, "/f");
    expect(fs.stat("/f").atime).toEqual(now);
    later(24 * 60 * 60 - 1);
    fs.accessed(ino, "/f");
    expect(fs.stat("/f").atime).toEqual(now);
    const dayLater = later(1);
    fs.accessed(ino, "/f");
    expect(fs.stat("/f").atime).toEqual(dayLater);
  });

  it("counts buffered writes (not stored yet) as a change", () => {
    // Buffered writes take their mtime from the write-back clock: use the same one here.
    clock = undefined;
    const { fh, stat } = fs.create("/w", 0o644);
    fs.accessed(stat.ino, "/w");
    const read = fs.stat("/w").atime;
    expect(fs.accessDue(stat.ino, "/w")).toBe(false);
    fs.write(fh, "/w", new TextEncoder().encode("more"), 0);
    expect(fs.accessDue(stat.ino, "/w")).toBe(true);
    fs.accessed(stat.ino, "/w");
    const again = fs.stat("/w").atime;
    expect(again).not.toEqual(read);
    fs.release(fh);
    expect(mirror.vfs.lstat("/w").atime).toEqual(again);
  });

  it("loads attributes it has not cached, and ignores a file without a name", () => {
    mirror.vfs.writeFile("/g", "x");
    const ino = mirror.vfs.lstat("/g").ino;
    const now = later(1);
    fs.accessed(ino, "");
    expect(mirror.vfs.lstat("/g").atime).not.toEqual(now);
    fs.accessed(ino, "/g");
    expect(mirror.vfs.lstat("/g").atime).toEqual(now);
  });
});
