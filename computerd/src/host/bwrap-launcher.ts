/**
 * `computerd host`'s own launcher: each computer's daemon is a `computerd serve` child of this
 * host (daemon-process.ts) with its folders under `--dir` (computer-folders.ts), its commands
 * sandboxed with bubblewrap over the image's root filesystem (or `--sandbox none`). Deleting a
 * computer removes its state and its emptied folders, which frees its sandbox uid.
 */
import { rmdirSync, rmSync } from "node:fs";
import { computerFolders, sandboxUidOf } from "./computer-folders.ts";
import type { ComputerLauncher } from "./computer-launcher.ts";
import { removeComputerRoot, rootFolders } from "./computer-root.ts";
import { DaemonProcess, daemonBaseEnv } from "./daemon-process.ts";
import type { HostConfig } from "./host-config.ts";
import { type Host, startHostServer } from "./host-server.ts";
import { SpareDaemon } from "./spare-daemon.ts";
import { SparePool } from "./spare-pool.ts";

/** The launcher of `config`'s computers; daemon output goes to `log`, prefixed by the computer. */
export function bwrapLauncher(config: HostConfig, log: (line: string) => void): ComputerLauncher {
  // Spare daemons wait for the next computers (spare-pool.ts); each one taken is replaced.
  const spares = new SparePool(config.spares, () =>
    SpareDaemon.start({
      command: config.computerd,
      env: daemonBaseEnv(config.dir),
      network: config.sandbox === "bwrap",
      log: (line) => log(`[spare] ${line}`),
    }),
  );
  return {
    start: (id, spec, specHash, dialBack) =>
      DaemonProcess.start(
        {
          computerId: id,
          command: config.computerd,
          dir: config.dir,
          folders: computerFolders(config.dir, id),
          sandboxUid: sandboxUidOf(config.dir, id),
          rootfs: config.rootfs,
          sandbox: config.sandbox,
          mount: config.mount,
          egress: spec.egress,
          egressAllow: spec.egressAllow,
          env: spec.env,
          log: (line) => log(`[${id}] ${line}`),
          spare: spares.take(),
          ...(dialBack === undefined ? {} : { dialBack }),
        },
        specHash,
      ),

    async close() {
      spares.stop();
    },

    async forget(id) {
      const folders = computerFolders(config.dir, id);
      rmSync(folders.stateDir, { recursive: true, force: true });
      await removeComputerRoot(folders);
      // Only empty folders (never recursively through a mount): this frees the sandbox uid.
      const { rootfs, root } = rootFolders(folders);
      for (const path of [folders.mountPoint, rootfs, root, folders.door]) {
        try {
          rmdirSync(path);
        } catch {
          // Already gone, or not empty.
        }
      }
    },
  };
}

/** `computerd host`: the host server over the bubblewrap launcher; resolves once it listens. */
export function startHost(config: HostConfig, log: (line: string) => void = console.log): Promise<Host> {
  return startHostServer({
    token: config.token,
    listen: config.listen,
    port: config.port,
    idleMs: config.idleMs,
    launcher: bwrapLauncher(config, log),
    log,
  });
}
