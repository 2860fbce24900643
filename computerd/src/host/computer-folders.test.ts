/**
 * A computer's folders under `computerd host`: their modes, a sandbox user of its own per
 * computer (recorded as the owner of `mnt/<id>`, kept across restarts, freed with the folder),
 * and, as root, that one computer's sandbox user cannot pass another's folders or the state.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canRun } from "@computer/fleet/capabilities";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/exec-harness.ts";
import {
  computerFolders,
  prepareComputerFolders,
  SANDBOX_UID_BASE,
  SANDBOX_UID_STRIDE,
  sandboxUidOf,
} from "./computer-folders.ts";

const root = canRun("the per-computer sandbox users (as root)", process.getuid?.() === 0 ? [] : ["root"]);
const mode = (path: string) => statSync(path).mode & 0o777;

describe("computer folders", () => {
  it("state is root's alone, mnt/ is passable but not listable, each door is closed", () => {
    const dir = tempDir("computerd-folders-");
    const folders = computerFolders(dir, "alpha");
    expect(folders).toEqual({
      stateDir: join(dir, "state", "alpha"),
      door: join(dir, "mnt", "alpha"),
      mountPoint: join(dir, "mnt", "alpha", "workspace"),
    });
    prepareComputerFolders(dir, folders, undefined);
    expect([mode(dir), mode(join(dir, "mnt")), mode(join(dir, "state"))]).toEqual([0o711, 0o711, 0o700]);
    expect([mode(folders.stateDir), mode(folders.door)]).toEqual([0o700, 0o700]);
  });

  it.runIf(root)("as root: each computer gets its own sandbox uid, kept until its folder goes", () => {
    const dir = tempDir("computerd-folders-");
    const alpha = sandboxUidOf(dir, "alpha");
    expect(alpha).toBe(SANDBOX_UID_BASE);
    prepareComputerFolders(dir, computerFolders(dir, "alpha"), alpha);
    const beta = sandboxUidOf(dir, "beta");
    expect(beta).toBe(SANDBOX_UID_BASE + SANDBOX_UID_STRIDE);
    prepareComputerFolders(dir, computerFolders(dir, "beta"), beta);
    expect(sandboxUidOf(dir, "alpha")).toBe(alpha);
    expect(statSync(computerFolders(dir, "beta").mountPoint).uid).toBe(beta);
    // Deleting alpha frees its uid for the next new computer.
    rmdirSync(computerFolders(dir, "alpha").mountPoint);
    rmdirSync(computerFolders(dir, "alpha").door);
    expect(sandboxUidOf(dir, "gamma")).toBe(alpha);
  });

  it.runIf(root)("as root: one computer's sandbox user cannot pass another's door or the state", () => {
    const dir = tempDir("computerd-folders-");
    const ids = ["alpha", "beta"].map((id) => {
      const uid = sandboxUidOf(dir, id);
      const folders = computerFolders(dir, id);
      prepareComputerFolders(dir, folders, uid);
      writeFileSync(join(folders.mountPoint, "secret.txt"), `${id} secret\n`);
      mkdirSync(folders.stateDir, { recursive: true });
      writeFileSync(join(folders.stateDir, "secret"), `${id} state\n`);
      return { id, uid, folders };
    });
    const [alpha, beta] = ids;
    if (!alpha || !beta) throw new Error("two computers expected");
    const as = (uid: number, script: string) =>
      execFileSync("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "sh", "-c", script], {
        encoding: "utf8",
      });
    const probe = (path: string) => `cat ${path} 2>/dev/null || echo refused`;
    expect(as(alpha.uid, probe(join(alpha.folders.mountPoint, "secret.txt")))).toBe("alpha secret\n");
    expect(as(alpha.uid, probe(join(beta.folders.mountPoint, "secret.txt")))).toBe("refused\n");
    expect(as(alpha.uid, probe(join(beta.folders.stateDir, "secret")))).toBe("refused\n");
    expect(as(alpha.uid, probe(join(alpha.folders.stateDir, "secret")))).toBe("refused\n");
    expect(
      as(
        alpha.uid,
        `ls ${dir} 2>/dev/null || echo refused; ls ${join(dir, "mnt")} 2>/dev/null || echo refused`,
      ),
    ).toBe("refused\nrefused\n");
  });
});
