import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Timespec } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { accessTime, atimeDue, atimeWriter, RELATIME_MAX_AGE_SEC } from "./relatime.ts";

const t = (sec: number, nsec = 0): Timespec => ({ sec, nsec });
const NOW = t(1_000_000, 500);

describe("atimeDue (Linux relatime)", () => {
  it("updates an atime that is not newer than mtime", () => {
    expect(atimeDue({ atime: t(100), mtime: t(200), ctime: t(50) }, NOW)).toBe(true);
    expect(atimeDue({ atime: t(100, 7), mtime: t(100, 7), ctime: t(50) }, NOW)).toBe(true);
  });

  it("updates an atime that is not newer than ctime", () => {
    expect(atimeDue({ atime: t(100), mtime: t(50), ctime: t(100, 1) }, NOW)).toBe(true);
    expect(atimeDue({ atime: t(100), mtime: t(50), ctime: t(100) }, NOW)).toBe(true);
  });

  it("leaves an atime newer than mtime and ctime alone while it is less than a day old", () => {
    const atime = t(NOW.sec - RELATIME_MAX_AGE_SEC + 1);
    expect(atimeDue({ atime, mtime: t(10), ctime: t(10) }, NOW)).toBe(false);
    expect(atimeDue({ atime: t(100, 2), mtime: t(100, 1), ctime: t(100, 1) }, t(100, 3))).toBe(false);
  });

  it("updates an atime a day old whatever mtime and ctime say", () => {
    const atime = t(NOW.sec - RELATIME_MAX_AGE_SEC);
    expect(atimeDue({ atime, mtime: t(10), ctime: t(10) }, NOW)).toBe(true);
  });

  it("leaves an atime in the future alone, and one equal to now", () => {
    expect(atimeDue({ atime: t(NOW.sec + 3600), mtime: t(10), ctime: t(10) }, NOW)).toBe(false);
    expect(atimeDue({ atime: NOW, mtime: NOW, ctime: NOW }, NOW)).toBe(false);
  });

  it("orders times before 1970 correctly", () => {
    expect(atimeDue({ atime: t(-100), mtime: t(-50), ctime: t(-200) }, t(-40))).toBe(true);
    expect(atimeDue({ atime: t(-50), mtime: t(-100), ctime: t(-100) }, t(-40))).toBe(false);
  });
});

describe("accessTime", () => {
  it("is now when mtime and ctime are older", () => {
    expect(accessTime({ mtime: t(10), ctime: t(20) }, NOW)).toEqual(NOW);
  });

  it("passes a change stamped by a clock slightly ahead, so the next access is not due again", () => {
    const ahead = { mtime: t(NOW.sec, 900), ctime: t(NOW.sec - 5) };
    const atime = accessTime(ahead, NOW);
    expect(atime).toEqual(t(NOW.sec, 901));
    expect(atimeDue({ ...ahead, atime }, NOW)).toBe(false);
    expect(accessTime({ mtime: t(5), ctime: t(NOW.sec, 999_999_999) }, NOW)).toEqual(t(NOW.sec + 1, 0));
    expect(accessTime({ mtime: NOW, ctime: NOW }, NOW)).toEqual(t(NOW.sec, 501));
  });

  it("does not follow an mtime set far in the future", () => {
    expect(accessTime({ mtime: t(NOW.sec + 3600), ctime: t(10) }, NOW)).toEqual(NOW);
  });
});

describe("atimeWriter", () => {
  let dir: string;
  let mirror: Mirror;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "computerd-relatime-"));
    mirror = openMirror(dir);
  });

  afterEach(() => {
    mirror.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores the atime in the grouped batch: no ctime change, no change record, no commit of its own", () => {
    mirror.vfs.writeFile("/f", "data");
    mirror.sql.commit();
    const before = mirror.vfs.lstat("/f");
    const rev = mirror.vfs.rev();
    const commits = mirror.sql.counters.commits;
    atimeWriter(mirror)(before.ino, t(1234, 5678));
    const after = mirror.vfs.lstat("/f");
    expect(after.atime).toEqual(t(1234, 5678));
    expect(after.ctime).toEqual(before.ctime);
    expect(after.mtime).toEqual(before.mtime);
    expect(mirror.vfs.rev()).toBe(rev);
    expect(mirror.sql.counters.commits).toBe(commits);
    mirror.sql.commit();
    expect(mirror.sql.counters.commits).toBe(commits + 1);
  });
});
