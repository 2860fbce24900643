import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorCode } from "../../test/error-code.ts";
import { type Mirror, openMirror } from "./open-mirror.ts";

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
