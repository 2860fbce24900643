/**
 * `computerd host`'s HTTP API (computerd's host server, the one implementation of the protocol)
 * over a docker launcher: each computer runs in one container of the computerd IMAGE
 * (`--device /dev/fuse --cap-add SYS_ADMIN`, host network, computerd on a free 127.0.0.1 port),
 * so the Worker's ComputerdHostLauncher drives real containers unchanged — ensure, stop,
 * delete, status, previews and the idle sweeper included. For tests and local high-fidelity runs
 * only: containers share the host's network, so egress `none` is not confined (an allow-list
 * is, by the image's computerd, as in production).
 */
import { type ChildProcess, execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import type { ComputerLauncher, LaunchedDaemon, LocalLaunchSpec } from "computerd/computer-launcher";
import { daemonHealthy } from "computerd/daemon-api";
import { startHostServer } from "computerd/host-server";

/** Options of the docker host. */
export interface DockerHostOptions {
  /** The image to run, e.g. `computer/computerd:latest`. */
  image: string;
  /** Bearer token the Worker presents (COMPUTERD_HOST_TOKEN). */
  token: string;
  /** Port on 127.0.0.1 (0: any free port). */
  port?: number;
  /** How long a container may take to answer `GET /health`. */
  startTimeoutMs?: number;
  /** A container with no running command and no request for this long is removed (10 min). */
  idleMs?: number;
  log?: (line: string) => void;
}

/** A running docker host. */
export interface DockerHost {
  port: number;
  /** Container names by computer id. */
  readonly containers: ReadonlyMap<string, string>;
  /** Removes every container it started and stops listening. */
  close(): Promise<void>;
}

/** Runs `docker ARGS`; resolves with stdout, rejects with stderr. */
export function docker(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "docker",
      [...args],
      { env: env ?? process.env, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`docker ${args[0] ?? ""}: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createTcpServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A container's variables of the launch spec: its COMPUTERD_* variables and its allow-list as
 * EGRESS_ALLOW, so the image's computerd runs commands in a network namespace whose one way out
 * is its egress proxy, as in production.
 */
export function containerEnv(spec: LocalLaunchSpec): Record<string, string> {
  return spec.egressAllow.length > 0 ? { ...spec.env, EGRESS_ALLOW: spec.egressAllow.join(",") } : spec.env;
}

/** The `docker run` arguments for one computer; the secret is passed by name from the environment. */
export function runArgs(image: string, name: string, port: number, env: Record<string, string>): string[] {
  const args = ["run", "-d", "--rm", "--name", name, "--network", "host"];
  args.push("--device", "/dev/fuse", "--cap-add", "SYS_ADMIN", "--security-opt", "apparmor=unconfined");
  args.push("-e", "COMPUTERD_SECRET", "-e", "COMPUTERD_HOST=127.0.0.1", "-e", `COMPUTERD_PORT=${port}`);
  for (const [key, value] of Object.entries(env)) args.push("-e", `${key}=${value}`);
  args.push(image);
  return args;
}

/** One computer's container: alive until `docker wait` returns (it exited) or it is removed. */
class Container implements LaunchedDaemon {
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  readonly specHash: string;
  lastUsed = Date.now();
  #alive = true;
  readonly #waiter: ChildProcess;

  constructor(name: string, port: number, secret: string, specHash: string) {
    this.name = name;
    this.url = `http://127.0.0.1:${port}`;
    this.secret = secret;
    this.specHash = specHash;
    this.#waiter = execFile("docker", ["wait", name], () => {
      this.#alive = false;
    });
  }

  get alive(): boolean {
    return this.#alive;
  }

  async stop(): Promise<void> {
    await docker(["rm", "-f", this.name]).catch(() => undefined);
    this.#alive = false;
    this.#waiter.kill();
  }
}

/** The launcher: `docker run` of the image per computer; `--rm` leaves nothing to forget. */
function dockerLauncher(options: DockerHostOptions): ComputerLauncher {
  const log = options.log ?? (() => undefined);
  return {
    async start(id, spec, specHash) {
      const port = await freePort();
      const secret = randomBytes(32).toString("hex");
      const name = `computerd-${id}-${randomBytes(3).toString("hex")}`;
      await docker(runArgs(options.image, name, port, containerEnv(spec)), {
        ...process.env,
        COMPUTERD_SECRET: secret,
      });
      const container = new Container(name, port, secret, specHash);
      const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
      while (!(await daemonHealthy(container.url))) {
        if (Date.now() > deadline || !container.alive) {
          const logs = await docker(["logs", "--tail", "30", name]).catch((error: unknown) => String(error));
          await container.stop();
          throw new Error(`container ${name} did not become healthy:\n${logs}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      log(`docker-host: ${id} runs in ${name} on ${container.url}`);
      return container;
    },
    forget: async () => undefined,
  };
}

/** Starts the docker host on 127.0.0.1; resolves once it listens. */
export async function startDockerHost(options: DockerHostOptions): Promise<DockerHost> {
  const host = await startHostServer({
    token: options.token,
    listen: "127.0.0.1",
    port: options.port ?? 0,
    idleMs: options.idleMs ?? 10 * 60_000,
    launcher: dockerLauncher(options),
    log: options.log,
  });
  return {
    port: host.port,
    get containers() {
      const running = [...host.daemons].flatMap(([id, c]) =>
        c instanceof Container ? [[id, c.name] as const] : [],
      );
      return new Map(running);
    },
    close: () => host.close(),
  };
}
