/**
 * The DO's vfs keeps directories by name across requests (a sync batch finds those an earlier one
 * met without a statement): a transaction that throws rolls back where the vfs cannot see it, so
 * the context drops them, and a path never resolves through a directory the rollback undid.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createComputer } from "../../test/helpers.ts";
import { ComputerContext } from "./context.ts";

describe("the DO's directory cache", () => {
  it("forgets a directory a rolled-back transaction created, whose inode number goes to another", async () => {
    const id = await createComputer();
    await runInDurableObject(env.COMPUTER.getByName(id), (_, state) => {
      const host = new ComputerContext(state, env);
      const vfs = host.vfs();
      expect(() =>
        host.sql().transaction(() => {
          vfs.mkdir("/gone");
          // Walks through /gone: the cache learns it by name.
          vfs.writeFile("/gone/inside", "x");
          throw new Error("refused");
        }),
      ).toThrow("refused");
      expect(vfs.exists("/gone")).toBe(false);
      // The rollback freed /gone's inode number: the next directory takes it.
      vfs.mkdir("/other");
      vfs.writeFile("/other/inside", "y");
      expect(vfs.exists("/gone/inside")).toBe(false);
      expect(vfs.childDirectory(1, "gone")).toBeUndefined();
      expect(vfs.readText("/other/inside")).toBe("y");
    });
  });
});
