import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openNodeVfs } from "@computer/vfs/node";
import { afterEach, describe, expect, it } from "vitest";
import { errorCode } from "../../test/error-code.ts";
import { MIRROR_FILE, MIRROR_PAGE_BYTES, type Mirror, openMirror } from "./open-mirror.ts";

let dir: string;
let mirror: Mirror;
afterEach(() => {
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(): Mirror {
  dir = mkdtempSync(join(tmpdir(), "computerd-mirror-"));
  mirror = openMirror(dir);
  return mirror;
}

describe("the mirror's used bytes in memory", () => {
  it("are the old ones again when an outer transaction that charged them rolls back", () => {
    const { vfs, sql } = open();
    vfs.writeFile("/a", "12345");
    expect(vfs.usage().usedBytes).toBe(5);
    expect(() =>
      sql.transaction(() => {
        vfs.writeFile("/b", "123");
        expect(vfs.usage().usedBytes).toBe(8);
        throw new Error("the batch is refused after its first changes");
      }),
    ).toThrow("refused");
    expect(vfs.usage().usedBytes).toBe(5);
    const before = sql.counters.statements;
    vfs.usage();
    expect(sql.counters.statements - before).toBe(0);
  });
});

describe("the mirror's directories cached by name", () => {
  it("are forgotten when an outer transaction that created them rolls back (a sync batch that fails)", () => {
    const { vfs, sql } = open();
    expect(() =>
      sql.transaction(() => {
        vfs.mkdir("/a/b", { recursive: true });
        vfs.writeFile("/a/b/f", "x");
        throw new Error("the batch is refused after its first changes");
      }),
    ).toThrow("refused");
    expect(errorCode(() => vfs.stat("/a/b/f"))).toBe("ENOENT");
    expect(errorCode(() => vfs.writeFile("/a/b/f", "y"))).toBe("ENOENT");
    // The inodes the rolled-back directories had are handed out again: each name gets its own.
    vfs.mkdir("/c/d", { recursive: true });
    vfs.writeFile("/c/d/g", "z");
    expect(vfs.readText("/c/d/g")).toBe("z");
    expect(vfs.list("/")).toMatchObject([{ name: "c" }]);
  });

  it("follow directories that move, swap or go (paths below them name other inodes then)", () => {
    const { vfs } = open();
    vfs.mkdir("/a/b", { recursive: true });
    vfs.writeFile("/a/b/f", "1");
    vfs.mkdir("/x/b", { recursive: true });
    vfs.writeFile("/x/b/f", "2");
    expect(vfs.readText("/a/b/f")).toBe("1");
    vfs.rename("/a", "/moved");
    expect(errorCode(() => vfs.readText("/a/b/f"))).toBe("ENOENT");
    expect(vfs.readText("/moved/b/f")).toBe("1");
    vfs.rename("/moved", "/x", { exchange: true });
    expect(vfs.readText("/x/b/f")).toBe("1");
    expect(vfs.readText("/moved/b/f")).toBe("2");
    vfs.rm("/moved", { recursive: true });
    vfs.mkdir("/moved/b", { recursive: true });
    expect(errorCode(() => vfs.readText("/moved/b/f"))).toBe("ENOENT");
    // A hard-linked file's names are found by walking up: they follow the rename too.
    vfs.link("/x/b/f", "/x/g");
    vfs.rename("/x/b", "/x/c");
    vfs.writeFile("/x/g", "3");
    expect(vfs.changes("0").changes.map((c) => c.path)).toContain("/x/c/f");
  });
});

describe("the mirror's SQLite page", () => {
  const pageSize = (m: Mirror) => m.sql.exec<{ page_size: number }>("PRAGMA page_size")[0]?.page_size;

  it("is 16 KiB in a new mirror (a 1 MiB chunk is 64 pages, not 256)", () => {
    const { vfs, sql } = open();
    expect(MIRROR_PAGE_BYTES).toBe(16384);
    expect(pageSize(mirror)).toBe(MIRROR_PAGE_BYTES);
    vfs.writeFile("/big", new Uint8Array(3 << 20).fill(7));
    sql.commit();
    expect(vfs.readFile("/big")).toEqual(new Uint8Array(3 << 20).fill(7));
  });

  it("stays what it was in a mirror made before, whose files open as they were", () => {
    dir = mkdtempSync(join(tmpdir(), "computerd-mirror-"));
    openNodeVfs(join(dir, MIRROR_FILE)).writeFile("/kept", "made before");
    mirror = openMirror(dir);
    expect(pageSize(mirror)).toBe(4096);
    expect(mirror.vfs.readText("/kept")).toBe("made before");
    mirror.vfs.writeFile("/new", "written after");
    mirror.sql.commit();
    expect(mirror.vfs.readText("/new")).toBe("written after");
  });
});
