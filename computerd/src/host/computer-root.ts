/**
 * Each computer's writable root over the image's root filesystem, as `computerd host` sets it
 * up before its daemon starts and takes it down after it stops (computer-folders.ts for where):
 *
 *     mnt/<id>/rootfs/   the root filesystem, read-only, idmapped to the computer's ids
 *                        (a file of host id N shows as sandboxUid+N: root's files are root's
 *                        inside the computer's user namespace; nothing changes on disk)
 *     mnt/<id>/layer/    upper/ and work/ of the overlay: what commands change (apt-get
 *                        install, /tmp, ~) — emptied at every start, as a container's layer is
 *     mnt/<id>/root/     the overlay of both: `/` of every command of the computer
 */
import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ID_COUNT, USERNS_HELPER } from "../exec/rootfs-sandbox.ts";
import { mountsAt } from "../mount/stale.ts";
import type { ComputerFolders } from "./computer-folders.ts";

const run = promisify(execFile);

/** The folders of a computer's root under its door. */
export function rootFolders(folders: Pick<ComputerFolders, "door">): {
  rootfs: string;
  layer: string;
  root: string;
} {
  return {
    rootfs: join(folders.door, "rootfs"),
    layer: join(folders.door, "layer"),
    root: join(folders.door, "root"),
  };
}

/** Lazily unmounts `path` when something is mounted there, as mountinfo says (ignores every failure). */
async function unmount(path: string): Promise<void> {
  if ((await mountsAt(path).catch(() => [{}])).length === 0) return;
  await run("umount", ["-l", path]).catch(() => undefined);
}

/** Unmounts a computer's root and empties its layer (a stopped container's layer is gone). */
export async function removeComputerRoot(folders: Pick<ComputerFolders, "door">): Promise<void> {
  const { rootfs, layer, root } = rootFolders(folders);
  await unmount(root);
  await unmount(rootfs);
  rmSync(layer, { recursive: true, force: true });
}

/**
 * Mounts a computer's root over `rootfs` (the image's root filesystem folder) and answers the
 * path of its `/`. Whatever an earlier daemon left is taken down first.
 */
export async function prepareComputerRoot(
  folders: Pick<ComputerFolders, "door">,
  rootfs: string,
  sandboxUid: number,
  helper = USERNS_HELPER,
): Promise<string> {
  await removeComputerRoot(folders);
  const paths = rootFolders(folders);
  const upper = join(paths.layer, "upper");
  const work = join(paths.layer, "work");
  for (const dir of [paths.rootfs, paths.root, upper, work]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The overlay's `/` takes the upper folder's owner and mode: root of the computer's, 0755.
  chownSync(upper, sandboxUid, sandboxUid);
  chmodSync(upper, 0o755);
  await run(helper, ["idmap", String(sandboxUid), String(ID_COUNT), rootfs, paths.rootfs]);
  const options = `lowerdir=${paths.rootfs},upperdir=${upper},workdir=${work}`;
  await run("mount", ["-t", "overlay", "overlay", "-o", options, paths.root]);
  return paths.root;
}
