/**
 * Everything exec needs inside one Computer DO, wired together: the journal, the exec manager,
 * the runtimes (container, and shell/js in Dynamic Workers), the launcher chosen from the
 * environment, the link to computerd, the DO's sync endpoint and the pending-sync retry.
 */
import { newSyncCounters, SyncEndpoint, syncMetrics } from "@computer/vfs/sync";
import type { ComputerContext } from "../computer/context.ts";
import { CloudflareLauncher, type LaunchState } from "../container/cloudflare-launcher.ts";
import { ComputerdHostLauncher } from "../container/computerd-host-launcher.ts";
import { ComputerdLink } from "../container/computerd-link.ts";
import { ContainerConnector, type LinkState } from "../container/container-connector.ts";
import type { ContainerLauncher, LaunchSpec } from "../container/container-launcher.ts";
import { computerLimits } from "../container/container-limits.ts";
import { ContainerRuntime } from "../container/container-runtime.ts";
import { gatewayFetcher } from "../container/dial-back-gateway.ts";
import { retryPendingSync, type SyncRetryDeps, schedulePendingSync } from "../container/sync-retry.ts";
import { globalOutboundFor } from "../egress/egress-gateway.ts";
import { type ArtifactPublisher, GuestServicesTarget } from "../guest-hosting/guest-services.ts";
import { GuestSession } from "../guest-hosting/guest-session.ts";
import { turndownConverter } from "../guest-hosting/html-to-markdown.ts";
import { JsRuntime, type JsRuntimeDeps } from "../guest-hosting/js-runtime.ts";
import { type KeptShellIsolate, ShellRuntime } from "../guest-hosting/shell-runtime.ts";
import { shellSpares } from "../guest-hosting/shell-spares.ts";
import { ExecManager } from "./exec-manager.ts";
import { ExecJournal } from "./journal.ts";
import type { ExecRequest, Runtime, RuntimeName, RuntimeSink } from "./runtime.ts";

const LINK_STATE_KEY = "computerd:link";
const LAUNCH_STATE_KEY = "computerd:launch";
const RETRY_ATTEMPTS_KEY = "computerd:retries";
/** The loader id the computer's shell execs run under (shell-runtime.ts). */
const SHELL_ISOLATE_KEY = "shell:isolate";
/** The virtual host a Cloudflare container dials back to (intercepted by the DO). */
export const DIAL_BACK_HOST = "computer.internal";

/** The launcher the environment configures: `computerd host` when its URL is set, else the DO's container. */
export function launcherFromEnv(host: ComputerContext): ContainerLauncher | undefined {
  const { env, ctx } = host;
  if (env.COMPUTERD_HOST_URL && env.COMPUTERD_HOST_TOKEN) {
    return new ComputerdHostLauncher({ url: env.COMPUTERD_HOST_URL, token: env.COMPUTERD_HOST_TOKEN });
  }
  const container = ctx.container;
  if (container === undefined) return undefined;
  const kv = ctx.storage.kv;
  const fetcher = gatewayFetcher(ctx, host.computerId());
  return new CloudflareLauncher({
    container,
    state: {
      get: () => kv.get<LaunchState>(LAUNCH_STATE_KEY),
      put: (state) => (state === undefined ? kv.delete(LAUNCH_STATE_KEY) : kv.put(LAUNCH_STATE_KEY, state)),
    },
    dialBack: fetcher === undefined ? undefined : { host: DIAL_BACK_HOST, fetcher },
  });
}

/** `syncCalls` → `doSyncCalls`: the DO's side of the wire, told apart from computerd's. */
function doPrefixed(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(metrics).map(([name, n]) => [`do${name[0]?.toUpperCase()}${name.slice(1)}`, n]),
  );
}

/** The exec subsystem of one Computer DO. */
export class ExecSubsystem {
  readonly journal: ExecJournal;
  readonly manager: ExecManager;
  readonly link: ComputerdLink;
  readonly connector: ContainerConnector;
  readonly #host: ComputerContext;
  readonly #runtimes = new Map<RuntimeName, Runtime>();
  #launcher: ContainerLauncher | undefined | null = null;
  #endpoint: SyncEndpoint | undefined;
  #artifacts: ArtifactPublisher | undefined;

  constructor(host: ComputerContext) {
    this.#host = host;
    const kv = host.ctx.storage.kv;
    this.journal = new ExecJournal(host.ctx.storage.sql);
    this.manager = new ExecManager(this.journal, (name) => this.#runtimes.get(name));
    const syncCounters = newSyncCounters();
    this.link = new ComputerdLink({
      endpoint: () => this.syncEndpoint(),
      rev: () => host.vfs().rev(),
      changed: () => void host.touched(),
      counters: syncCounters,
    });
    this.connector = new ContainerConnector({
      computerId: () => host.computerId(),
      launcher: () => this.launcher(),
      link: this.link,
      launchSpec: () => this.launchSpec(),
      dialBase: () => host.env.COMPUTERD_DIAL_BASE ?? host.apiOrigin(),
      state: {
        get: () => kv.get<LinkState>(LINK_STATE_KEY),
        put: (state) => (state === undefined ? kv.delete(LINK_STATE_KEY) : kv.put(LINK_STATE_KEY, state)),
      },
    });
    this.#runtimes.set(
      "container",
      new ContainerRuntime({
        connect: () => this.connector.connect(),
        pending: () => void schedulePendingSync(this.#retryDeps()),
        fenced: (rev) => this.journal.completeSync(this.journal.pendingSync(), rev, []),
        limits: () => computerLimits(host.vfs()),
        // As X-Exec-Metrics: the DO's SQL and the sync calls computerd made to it (do-sync-target.ts).
        counters: () => ({ doSql: host.sqlCounts.statements, ...doPrefixed(syncMetrics(syncCounters)) }),
      }),
    );
    this.#runtimes.set(
      "shell",
      new ShellRuntime({
        ...this.#guestDeps(),
        isolate: {
          get: () => kv.get<KeptShellIsolate>(SHELL_ISOLATE_KEY),
          put: (kept) => kv.put(SHELL_ISOLATE_KEY, kept),
        },
        spares: shellSpares,
      }),
    );
    this.#runtimes.set("js", new JsRuntime(this.#guestDeps()));
  }

  /** What the Dynamic Worker runtimes (shell, js) need from this DO. */
  #guestDeps(): JsRuntimeDeps {
    const host = this.#host;
    return {
      vfs: () => host.vfs(),
      loader: () => host.env.LOADER,
      computerId: () => host.computerId(),
      egress: () => host.requireComputer().egress,
      outbound: (egress) => globalOutboundFor(host.ctx, egress),
      session: (request, sink) => this.#guestSession(request, sink),
    };
  }

  #guestSession(request: ExecRequest, sink: RuntimeSink): GuestSession {
    const host = this.#host;
    const changed = () => void host.touched();
    const services = new GuestServicesTarget({
      vfs: () => host.vfs(),
      egress: () => host.requireComputer().egress,
      env: request.env,
      cwd: request.cwd,
      changed,
      artifacts: this.#artifacts,
      converter: () =>
        turndownConverter(host.env.LOADER, host.ctx.storage.kv.get<KeptShellIsolate>(SHELL_ISOLATE_KEY)?.id),
    });
    return new GuestSession({ vfs: () => host.vfs(), changed, services }, sink);
  }

  /** Where shell `publish` and `computer:artifacts` publish to (set by the artifacts subsystem). */
  useArtifacts(publisher: ArtifactPublisher | undefined): void {
    this.#artifacts = publisher;
  }

  /** The launcher (from the environment unless a test installed one). */
  launcher(): ContainerLauncher | undefined {
    if (this.#launcher === null) this.#launcher = launcherFromEnv(this.#host);
    return this.#launcher;
  }

  /** Test seam: replaces the launcher. */
  useLauncher(launcher: ContainerLauncher | undefined): void {
    this.#launcher = launcher;
  }

  /** Test seam (and where shell/js plug in): the runtime serving `name`; undefined removes it. */
  useRuntime(name: RuntimeName, runtime: Runtime | undefined): void {
    if (runtime === undefined) this.#runtimes.delete(name);
    else this.#runtimes.set(name, runtime);
  }

  /** The spec computerd runs with: the computer's egress policy. */
  launchSpec(): LaunchSpec {
    const record = this.#host.requireComputer();
    const spec: LaunchSpec = { egress: record.egress, env: { COMPUTERD_COMPUTER_ID: record.id } };
    if (this.#host.env.COMPUTERD_IMAGE) spec.image = this.#host.env.COMPUTERD_IMAGE;
    return spec;
  }

  /** The DO's sync endpoint over the vfs database. */
  syncEndpoint(): SyncEndpoint {
    this.#endpoint ??= new SyncEndpoint(this.#host.vfs(), this.#host.sql(), {
      side: "do",
      sha256: this.#host.sha256,
    });
    return this.#endpoint;
  }

  /** Serves computerd's dial-back (401 unless it presents the launched daemon's secret). */
  async acceptLink(request: Request): Promise<Response> {
    return this.link.accept(request, await this.#daemonSecret());
  }

  /** computerd's blob upload (`POST .../_computerd/blobs`), with the same secret as its dial-back. */
  async receiveBlobs(request: Request): Promise<Response> {
    return this.link.receiveBlobs(request, await this.#daemonSecret());
  }

  /** The launched computerd's secret (undefined: none launched), which its requests must present. */
  async #daemonSecret(): Promise<string | undefined> {
    this.#host.requireComputer();
    // A computerd given the link URL dials as soon as it listens, maybe before its ensure has
    // answered here: the secret it must present is known (stored) only then.
    await this.connector.ensured();
    return this.#host.ctx.storage.kv.get<LinkState>(LINK_STATE_KEY)?.secret;
  }

  #retryDeps(): SyncRetryDeps {
    const kv = this.#host.ctx.storage.kv;
    return {
      journal: this.journal,
      connect: () => this.connector.connect(),
      schedule: (at) => this.#host.alarms.schedule("sync", at),
      attempts: {
        get: () => kv.get<number>(RETRY_ATTEMPTS_KEY) ?? 0,
        put: (n) => kv.put(RETRY_ATTEMPTS_KEY, n),
      },
      now: () => Date.now(),
    };
  }

  /** The alarm's sync job: finishes pending syncs (reschedules itself on failure). */
  async retrySync(): Promise<void> {
    if (this.#host.records.get()?.state !== "ready") return;
    await retryPendingSync(this.#retryDeps());
  }

  /** The computer is being deleted: kill execs, drop the link and the container with its state. */
  async destroy(): Promise<void> {
    await this.manager.killAll();
    this.link.close("computer deleted");
    const launcher = this.launcher();
    if (launcher !== undefined) {
      try {
        await launcher.destroy(this.#host.computerId());
      } catch (err) {
        console.error("could not destroy the computer's container:", err);
      }
    }
    this.#endpoint = undefined;
    this.journal.reset();
  }
}
