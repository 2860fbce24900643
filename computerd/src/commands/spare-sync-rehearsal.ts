/**
 * What a spare runs once before it is taken (spare.ts), beside its HTTP rehearsal
 * (spare-rehearsal.ts): the code a new computer's daemon runs first, compiled ahead. It opens a
 * mirror as a daemon opens its computer's, and syncs a few files both ways with a second one in
 * the roles of the Durable Object and of computerd (hello, a batch pushed, one uploaded): the
 * first mirror a daemon opened and the first batch it applied took 20–50 ms more than later
 * ones here, most of it V8 compiling functions on their first call. Both mirrors are
 * throwaway files in a temporary folder of its own, removed after; nothing of any computer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "@computer/vfs/node";
import { SyncEndpoint, SyncLink } from "@computer/vfs/sync";
import { type Mirror, openMirror } from "../mirror/open-mirror.ts";
import { VFS_OWNER } from "../sync/workspace.ts";

/** Small files as a new computer's first push and upload carry them. */
function writeSome(mirror: Mirror, prefix: string): void {
  mirror.vfs.mkdir(`/${prefix}`);
  for (let i = 0; i < 4; i++) mirror.vfs.writeFile(`/${prefix}/${i}.txt`, `${prefix} ${i}\n`);
  mirror.sql.commit();
}

/**
 * Opens a mirror in `dir` as a daemon opens its computer's and one beside it as its peer, and
 * syncs them both ways; answers what each then lists at its root.
 */
export async function syncBothWays(dir: string): Promise<{ ours: string[]; theirs: string[] }> {
  const opened: Mirror[] = [];
  try {
    const ours = openMirror(join(dir, "mirror"), { owner: VFS_OWNER });
    opened.push(ours);
    const theirs = openMirror(join(dir, "peer"), { owner: VFS_OWNER, backgroundCheckpoints: false });
    opened.push(theirs);
    const computerd = new SyncEndpoint(ours.vfs, ours.sql, {
      side: "container",
      sha256: sha256Hex,
      fetches: true,
    });
    const durableObject = new SyncEndpoint(theirs.vfs, theirs.sql, { side: "do", sha256: sha256Hex });
    writeSome(theirs, "pushed");
    await new SyncLink(durableObject, computerd).drain();
    writeSome(ours, "uploaded");
    await new SyncLink(computerd, durableObject).drain();
    const names = (mirror: Mirror) => mirror.vfs.list("/").map((entry) => entry.name);
    return { ours: names(ours), theirs: names(theirs) };
  } finally {
    for (const mirror of opened) mirror.close();
  }
}

/** syncBothWays in a temporary folder of its own, removed after; never throws (it only warms code). */
export async function rehearseSync(): Promise<void> {
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), "computerd-spare-"));
    await syncBothWays(dir);
  } catch {
    // Nothing warmed then: the daemon compiles it on its first use.
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
