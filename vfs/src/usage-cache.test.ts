/** The used bytes and the quota kept in memory: no statement to ask, and never a stale answer. */
import { describe, expect, sha256Hex, sqlTest, TEST_EPOCH_MS } from "../test/backend.ts";
import { countStatements } from "../test/statements.ts";
import { openVfs, type Vfs } from "./index.ts";
import type { SqlLike } from "./sql.ts";
import { UsageCache } from "./usage-cache.ts";

function cachedVfs(sql: SqlLike, cache = new UsageCache()): Vfs {
  return openVfs(sql, { sha256: sha256Hex, now: () => TEST_EPOCH_MS, usageCache: cache });
}

describe("usage cache", () => {
  sqlTest("asking again runs no statement; writes, deletes and the quota keep it exact", (sql) => {
    const vfs = cachedVfs(sql);
    vfs.setQuota(100);
    vfs.writeFile("/a", "12345");
    expect(vfs.usage()).toEqual({ usedBytes: 5, quotaBytes: 100 });
    expect(countStatements(sql, () => vfs.usage())).toBe(0);
    vfs.writeFile("/b", "123");
    vfs.unlink("/a");
    vfs.setQuota(50);
    expect(countStatements(sql, () => expect(vfs.usage()).toEqual({ usedBytes: 3, quotaBytes: 50 }))).toBe(1);
    // What a fresh vfs over the same database reads is what the cached one answered.
    expect(openVfs(sql, { sha256: sha256Hex }).usage()).toEqual(vfs.usage());
  });

  sqlTest("a write refused by the quota (rolled back) leaves the used bytes as they were", (sql) => {
    const vfs = cachedVfs(sql);
    vfs.setQuota(10);
    vfs.writeFile("/a", "12345");
    expect(() => vfs.writeFile("/b", "123456")).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    expect(vfs.usage()).toEqual({ usedBytes: 5, quotaBytes: 10 });
    vfs.writeFile("/c", "12345");
    expect(vfs.usage()).toEqual({ usedBytes: 10, quotaBytes: 10 });
  });
});
