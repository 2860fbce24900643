import type { Stat } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { PageCachePolicy } from "./page-cache.ts";

const O_RDONLY = 0;
const O_WRONLY = 1;

function stat(ino: number, size: number, mtimeMs: number): Stat {
  const time = { sec: Math.floor(mtimeMs / 1000), nsec: (mtimeMs % 1000) * 1e6 + 123 };
  return { ino, size, mtime: time } as Stat;
}

describe("PageCachePolicy", () => {
  it("keeps the cache while size and mtime are what the kernel saw at its last open", () => {
    const policy = new PageCachePolicy("auto");
    expect(policy.opened(stat(5, 10, 1000), 1, O_RDONLY)).toBe(false);
    expect(policy.opened(stat(5, 10, 1000), 2, O_RDONLY)).toBe(true);
    // Changed where the kernel did not see it (a write-back that failed and dropped data).
    expect(policy.opened(stat(5, 4, 1000), 3, O_RDONLY)).toBe(false);
    expect(policy.opened(stat(5, 4, 2000), 4, O_RDONLY)).toBe(false);
  });

  it("counts the kernel's own changes as seen, to the millisecond", () => {
    const policy = new PageCachePolicy("auto");
    policy.opened(stat(7, 0, 1000), 1, O_WRONLY);
    expect(policy.writes(1)).toBe(true);
    policy.changedByKernel(stat(7, 4096, 1500));
    policy.released(1);
    expect(policy.writes(1)).toBe(false);
    const stored = stat(7, 4096, 1500);
    stored.mtime = { sec: 1, nsec: 500_999_999 };
    expect(policy.opened(stored, 2, O_RDONLY)).toBe(true);
  });

  it("forgets an inode the kernel forgot; keep mode always keeps", () => {
    const policy = new PageCachePolicy("auto");
    policy.opened(stat(9, 1, 1), 1, O_RDONLY);
    policy.forgotten(9);
    policy.changedByKernel(stat(9, 1, 1));
    expect(policy.opened(stat(9, 1, 1), 2, O_RDONLY)).toBe(false);
    expect(new PageCachePolicy("keep").opened(stat(9, 1, 1), 1, O_RDONLY)).toBe(true);
  });
});
