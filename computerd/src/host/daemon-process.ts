/**
 * One `computerd serve` child of `computerd host`: its own state folder (0700, the secret file
 * inside), its own mount point and sandbox user (computer-folders.ts), its own port on 127.0.0.1 (chosen by the OS, read from the
 * daemon's `listening` line), a fresh secret, and commands sandboxed with bubblewrap. Stopping
 * sends SIGTERM, then SIGKILL, then lazily unmounts whatever a killed daemon left behind.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { mountsAt } from "../mount/stale.ts";
import { type ComputerFolders, prepareComputerFolders } from "./computer-folders.ts";
import { prepareComputerRoot, removeComputerRoot, rootFolders } from "./computer-root.ts";
import { daemonHealthy } from "./daemon-api.ts";
import type { SpareDaemon } from "./spare-daemon.ts";

/** How to launch one daemon. */
export interface DaemonLaunch {
  computerId: string;
  /** `computerd` argv prefix (node + bin). */
  command: string[];
  /** The host's folder (`--dir`) and this computer's folders inside it. */
  dir: string;
  folders: ComputerFolders;
  /** The host user its sandboxed commands run as (used when the host is root). */
  sandboxUid: number;
  /** The image's root filesystem, or "" for the host's system folders (computer-root.ts). */
  rootfs: string;
  sandbox: "bwrap" | "none";
  mount: "fuse" | "fuse3" | "none";
  egress: "none" | "all";
  /** With egress none: the allow-list the daemon's egress proxy enforces (empty: none). */
  egressAllow?: readonly string[];
  /** Extra environment (from the launch spec). */
  env: Record<string, string>;
  /** How long to wait for the daemon to listen and answer /health. */
  startTimeoutMs?: number;
  /** Lines of the daemon's output go here (prefixed by the caller). */
  log?: (line: string) => void;
  /** A spare (ready or starting) to become this daemon (spare-daemon.ts) instead of a new process. */
  spare?: SpareDaemon;
  /** The Durable Object's link URL, dialed by the daemon as soon as it listens (`--dial-back`). */
  dialBack?: string;
}

/**
 * The environment of every daemon before any computer's variables: the host's, without its
 * token or a secret, with Node's compile cache (a daemon's start without it spends ~300 ms of
 * CPU stripping and compiling its TypeScript), root's alone, under state/ (no computer id
 * starts with a dot).
 */
export function daemonBaseEnv(dir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_COMPILE_CACHE: join(dir, "state", ".compile-cache"),
  };
  delete env.COMPUTERD_HOST_TOKEN;
  delete env.COMPUTERD_SECRET;
  return env;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Lazily unmounts `path` if a FUSE mount was left there (ignores every failure). Nothing is
 * spawned when mountinfo shows no mount there (a new computer: two processes fewer on its start).
 */
export async function unmountStale(path: string): Promise<void> {
  if ((await mountsAt(path).catch(() => [{}])).length === 0) return;
  return new Promise((resolve) => {
    execFile("fusermount3", ["-uz", path], () => {
      execFile("fusermount", ["-uz", path], () => resolve());
    });
  });
}

/** A running daemon (the LaunchedDaemon of the bubblewrap launcher, bwrap-launcher.ts). */
export class DaemonProcess {
  readonly computerId: string;
  readonly secret: string;
  readonly specHash: string;
  readonly mountPoint: string;
  url = "";
  lastUsed = Date.now();
  readonly dialing: boolean;
  readonly #child: ChildProcess;
  readonly #folders: ComputerFolders;
  /** True when this daemon's commands run over a root of its own (taken down at stop). */
  readonly #ownRoot: boolean;
  readonly #exited: Promise<void>;
  #alive = true;

  private constructor(
    launch: DaemonLaunch,
    specHash: string,
    secret: string,
    child: ChildProcess,
    ownRoot: boolean,
  ) {
    this.computerId = launch.computerId;
    this.specHash = specHash;
    this.secret = secret;
    this.mountPoint = launch.folders.mountPoint;
    this.dialing = launch.dialBack !== undefined;
    this.#folders = launch.folders;
    this.#ownRoot = ownRoot;
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once("exit", () => {
        this.#alive = false;
        resolve();
      });
    });
  }

  /** Starts a daemon and resolves once it said it listens (its `/health` answers from then on). */
  static async start(launch: DaemonLaunch, specHash: string): Promise<DaemonProcess> {
    const { stateDir, mountPoint } = launch.folders;
    await unmountStale(mountPoint);
    const owner = launch.sandbox === "bwrap" && process.getuid?.() === 0 ? launch.sandboxUid : undefined;
    prepareComputerFolders(launch.dir, launch.folders, owner);
    // Over the image's root filesystem, root inside owns the workspace as host id sandboxUid.
    const ownRoot = owner !== undefined && launch.rootfs !== "";
    const root = ownRoot ? rootFolders(launch.folders).root : "";
    // A spare opens its mirror and mount while the root is mounted (it waits for root-ready).
    const mountRoot = () =>
      ownRoot ? prepareComputerRoot(launch.folders, launch.rootfs, owner as number) : Promise.resolve(root);
    const spare = launch.spare?.available ? launch.spare : undefined;
    if (spare === undefined) await mountRoot();
    const secret = randomBytes(32).toString("hex");
    const secretFile = join(stateDir, "secret");
    writeFileSync(secretFile, secret, { mode: 0o600 });
    const [node, ...rest] = launch.command;
    if (node === undefined) throw new Error("no computerd command");
    const args = [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--mount-point",
      mountPoint,
      "--state-dir",
      stateDir,
      "--mount-backend",
      launch.mount,
      "--exec-sandbox",
      launch.sandbox,
      "--egress",
      launch.egress,
      "--egress-allow",
      (launch.egressAllow ?? []).join(","),
      "--sandbox-uid",
      String(launch.sandboxUid),
      "--sandbox-root",
      root,
      "--secret-file",
      secretFile,
      ...(launch.dialBack === undefined ? [] : ["--dial-back", launch.dialBack]),
    ];
    const env = { ...daemonBaseEnv(launch.dir), ...launch.env };
    delete env.COMPUTERD_SECRET;
    const spareEnv = { ...launch.env };
    delete spareEnv.COMPUTERD_SECRET;
    const taken = spare?.take(args, spareEnv, ownRoot);
    const child =
      taken ?? spawn(node, [...rest, "serve", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    const daemon = new DaemonProcess(launch, specHash, secret, child, ownRoot);
    const listening = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("computerd did not start listening")),
        launch.startTimeoutMs ?? 30_000,
      );
      const tail: string[] = [];
      if (child.stdout) {
        createInterface({ input: child.stdout }).on("line", (line) => {
          launch.log?.(line);
          try {
            const event = JSON.parse(line) as { event?: string; port?: number };
            if (event.event === "listening" && typeof event.port === "number") {
              clearTimeout(timer);
              resolve(event.port);
            }
          } catch {
            // Not a lifecycle line.
          }
        });
      }
      if (child.stderr) {
        createInterface({ input: child.stderr }).on("line", (line) => {
          launch.log?.(line);
          tail.push(line);
          if (tail.length > 20) tail.shift();
        });
      }
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`computerd exited (${code}) before listening: ${tail.join("\n")}`));
      });
    });
    listening.catch(() => undefined);
    if (taken !== undefined && ownRoot) {
      try {
        await mountRoot();
        taken.stdin?.write("root-ready\n");
      } catch (error) {
        taken.stdin?.write("root-failed\n");
        await daemon.stop();
        throw error;
      }
    }
    const port = await listening.catch(async (error: unknown) => {
      await daemon.stop();
      throw error;
    });
    daemon.url = `http://127.0.0.1:${port}`;
    // No `/health` poll: serve says it listens only once its mount and HTTP server are up, and
    // the first request to a new port cost a new computer 10–60 ms here.
    return daemon;
  }

  /** Its process id. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** True while the process runs. */
  get alive(): boolean {
    return this.#alive;
  }

  /** True while it runs and `GET /health` answers 200. */
  healthy(): Promise<boolean> {
    return this.#alive ? daemonHealthy(this.url) : Promise.resolve(false);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; then clears a mount the daemon left. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.#alive) {
      this.#child.kill("SIGTERM");
      const killed = await Promise.race([this.#exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!killed) {
        this.#child.kill("SIGKILL");
        await this.#exited;
      }
    }
    await unmountStale(this.mountPoint);
    if (this.#ownRoot) await removeComputerRoot(this.#folders);
  }
}
