/**
 * `make dev`: runs the local fleet on http://127.0.0.1:8787 until Ctrl-C, SIGTERM or SIGHUP:
 * the Worker (bundled as `wrangler deploy` bundles it and served with no proxy in front,
 * rebuilt when a source changes: @computer/fleet/dev-worker) and `computerd host` (containers, on 127.0.0.1:8790), whose
 * commands run over the computerd image's root filesystem (built on the first run, then cached);
 * with CONTAINERS=docker, the image itself under a local docker engine (images/src/docker-host.ts)
 * in place of `computerd host`.
 * Generates the admin token on first run (.computer/admin-token), hands it and the host's
 * address to the Worker through worker/.dev.vars, persists state in .computer/state and
 * .computer/host, the Worker's bundle in .computer/worker. Needs no terminal.
 */
import { chmodSync } from "node:fs";
import { createServer } from "node:net";
import { ensureAdminToken, upsertEnvFile } from "@computer/fleet/admin-token";
import { hostVars, startComputerdHost, waitForHost } from "@computer/fleet/computerd-host";
import { startDevWorker } from "@computer/fleet/dev-worker";
import { ensureImage, rootfsIfRoot } from "@computer/fleet/image-builds";
import { ProcessGroup } from "@computer/fleet/process-group";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";
import { startDockerHost } from "@computer/images/docker-host";

const HOST = "127.0.0.1";
const PORT = Number(process.env.COMPUTER_DEV_PORT ?? 8787);
const TOKEN_FILE = `${REPO_ROOT}/.computer/admin-token`;
const HOST_PORT = Number(process.env.COMPUTERD_HOST_PORT ?? 8790);
const HOST_TOKEN_FILE = `${REPO_ROOT}/.computer/host-token`;

function log(message: string): void {
  console.log(`dev: ${message}`);
}

/** Fails early with a clear message instead of a process that cannot listen. */
function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (err) =>
      reject(new Error(`port ${port} on ${HOST} is in use (${err.message}); is another make dev running?`)),
    );
    server.listen(port, HOST, () => server.close(() => resolve()));
  });
}

/** Calls `onOrphaned` once this process's parent (npm, make) has gone away. */
function watchParent(onOrphaned: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onOrphaned();
    }
  }, 1000);
}

function banner(url: string, token: string): string {
  return [
    "",
    `Computer is running at ${url}`,
    `Admin token: ${token}`,
    "  (stored in .computer/admin-token; state in .computer/state)",
    "",
    "Try, with curl:",
    `  curl -s -X PUT -H "Authorization: Bearer $(cat .computer/admin-token)" ${url}/v1/computers/demo`,
    "or with the CLI (docs/CLI.md):",
    `  npx computer login --url ${url} --token "$(cat .computer/admin-token)"`,
    "  npx computer create demo && npx computer use demo",
    "  npx computer exec -- uname -a",
    "",
    "Stop with Ctrl-C.",
    "",
  ].join("\n");
}

/** Starts the container runtime on HOST_PORT; resolves once it answers, with how to stop it. */
async function startContainers(group: ProcessGroup, hostToken: string, onExit: (why: string) => void) {
  if (process.env.CONTAINERS === "docker") {
    log("containers: the computerd image under docker");
    const image = await ensureImage((line) => console.log(line));
    const host = await startDockerHost({
      image,
      token: hostToken,
      port: HOST_PORT,
      log: (line) => console.log(line),
    });
    return () => host.close();
  }
  const rootfs = await rootfsIfRoot((line) => console.log(line));
  log(
    rootfs
      ? `containers: computerd host over ${rootfs}`
      : "containers: computerd host over the host's system folders",
  );
  // bubblewrap, as each computer's sandbox user, must pass through .computer to its folder under
  // .computer/host: search permission only, no listing (the admin token inside stays 0600).
  chmodSync(`${REPO_ROOT}/.computer`, 0o711);
  const computerd = startComputerdHost(group, {
    port: HOST_PORT,
    dir: `${REPO_ROOT}/.computer/host`,
    token: hostToken,
    sandbox: process.env.COMPUTERD_HOST_SANDBOX === "none" ? "none" : "bwrap",
    rootfs,
  });
  void computerd.exited.then((info) =>
    onExit(`computerd host exited (${info.signal ?? `code ${info.code}`})`),
  );
  await waitForHost(HOST_PORT, computerd);
  return async () => undefined;
}

async function main(): Promise<void> {
  const started = Date.now();
  const token = ensureAdminToken(TOKEN_FILE);
  const hostToken = ensureAdminToken(HOST_TOKEN_FILE);
  upsertEnvFile(`${REPO_ROOT}/worker/.dev.vars`, {
    COMPUTER_ADMIN_TOKEN: token,
    ...hostVars(HOST_PORT, hostToken),
  });
  await assertPortFree(PORT);
  await assertPortFree(HOST_PORT);

  const group = new ProcessGroup();
  let stopping = false;
  let stopContainers: () => Promise<void> = async () => undefined;
  const shutdown = async (reason: string, exitCode: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${reason}; stopping`);
    await stopContainers().catch(() => undefined);
    await group.stop();
    process.exit(exitCode);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => void shutdown(`received ${signal}`, 0));
  }
  watchParent(() => void shutdown("parent process exited", 0));

  const url = `http://${HOST}:${PORT}`;
  try {
    // The Worker's build and the container runtime's start (the root filesystem's on the first run) side by side.
    await Promise.all([
      startContainers(group, hostToken, (why) => void shutdown(why, 1)).then((stop) => {
        stopContainers = stop;
      }),
      startDevWorker(group, {
        port: PORT,
        bundleDir: `${REPO_ROOT}/.computer/worker`,
        persistTo: `${REPO_ROOT}/.computer/state`,
        log,
        onExit: (info) =>
          void shutdown(`the Worker exited (${info.signal ?? `code ${info.code}`})`, info.code === 0 ? 0 : 1),
      }),
    ]);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    await shutdown("the fleet did not start", 1);
    return;
  }
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(banner(url, token));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
