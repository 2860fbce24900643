/** The spare's sync rehearsal really syncs both ways, and leaves no folder or thread behind. */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rehearseSync, syncBothWays } from "./spare-sync-rehearsal.ts";

const rehearsalFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith("computerd-spare-"));

describe("the spare's sync rehearsal", () => {
  it("pushes the peer's files into the mirror and uploads the mirror's to the peer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sync-rehearsal-test-"));
    const { ours, theirs } = await syncBothWays(dir);
    expect(ours.sort()).toEqual(["pushed", "uploaded"]);
    expect(theirs.sort()).toEqual(["pushed", "uploaded"]);
  });

  it("removes its folder and closes its mirrors (their checkpoint thread too)", async () => {
    const before = rehearsalFolders();
    await rehearseSync();
    expect(rehearsalFolders()).toEqual(before);
    await expect
      .poll(() => process.getActiveResourcesInfo().filter((name) => name === "MessagePort"))
      .toEqual([]);
  });
});
