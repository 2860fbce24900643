/**
 * Getting a computer to a live link with its computerd: ask the launcher to ensure the daemon
 * runs with the current launch spec, then (unless a session with that spec is already up) call
 * its `POST /connect` with the base URL to dial back to, and wait for the dial-back. The link
 * URL is offered with the ensure: a launcher that can (computerd host) has a computerd it
 * starts dial it as soon as it listens, and then no `/connect` is made (one round trip fewer
 * on a computer's start), unless that dial has not come within EARLY_DIAL_MS.
 * Concurrent callers share one attempt.
 */
import { ApiError } from "../http/errors.ts";
import { type ComputerdLink, type LinkSession, linkPath } from "./computerd-link.ts";
import {
  type ContainerLauncher,
  type DaemonEndpoint,
  type LaunchSpec,
  RETRY_AFTER_SECONDS,
  specHash,
} from "./container-launcher.ts";

/** What the connector remembers between calls (the DO keeps it in storage). */
export interface LinkState {
  /** Secret of the launched computerd (the dial-back must present it). */
  secret: string;
  /** Hash of the spec it was launched with. */
  specHash: string;
}

/** What the connector needs from the DO. */
export interface ConnectorDeps {
  computerId(): string;
  launcher(): ContainerLauncher | undefined;
  link: ComputerdLink;
  /** The spec computerd must run with now (egress etc.). */
  launchSpec(): LaunchSpec;
  /** Base URL for the dial-back when the launcher does not decide it (the Worker's origin). */
  dialBase(): string | undefined;
  state: { get(): LinkState | undefined; put(state: LinkState | undefined): void };
}

/** How long to wait for computerd to dial back after `/connect`. */
export const DIAL_BACK_TIMEOUT_MS = 30_000;

/** How long a computerd started with the link URL has to dial it before `/connect` asks it to. */
export const EARLY_DIAL_MS = 5_000;

function unavailable(message: string): ApiError {
  return new ApiError("EUNAVAILABLE", message, { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });
}

/** Ensures a live link to the computer's computerd. */
export class ContainerConnector {
  readonly #deps: ConnectorDeps;
  #pending: Promise<LinkSession> | undefined;
  /** Settles when the ensure in flight has answered and its secret is stored. */
  #ensuring: Promise<void> | undefined;

  constructor(deps: ConnectorDeps) {
    this.#deps = deps;
  }

  /** A live session with computerd running the current spec; 503 EUNAVAILABLE when none can be had. */
  connect(): Promise<LinkSession> {
    this.#pending ??= this.#connect().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Settles once no ensure is in flight (a dial-back waits for the secret it must present). */
  ensured(): Promise<void> {
    return this.#ensuring ?? Promise.resolve();
  }

  async #connect(): Promise<LinkSession> {
    const deps = this.#deps;
    const launcher = deps.launcher();
    if (launcher === undefined) throw new ApiError("EUNAVAILABLE", "runtime container not available");
    const spec = deps.launchSpec();
    const hash = await specHash(spec);
    const current = deps.link.current();
    if (current !== undefined && deps.state.get()?.specHash === hash) return current;
    const id = deps.computerId();
    const origin = deps.dialBase();
    const offered = origin === undefined ? undefined : new URL(linkPath(id), origin).toString();
    let ensured = () => {};
    this.#ensuring = new Promise((resolve) => {
      ensured = resolve;
    });
    let daemon: DaemonEndpoint;
    try {
      daemon = await launcher.ensure(id, spec, hash, offered);
      const previous = deps.state.get();
      deps.state.put({ secret: daemon.secret, specHash: hash });
      const still = deps.link.current();
      if (still !== undefined && previous?.secret === daemon.secret && previous.specHash === hash)
        return still;
      if (still !== undefined) deps.link.close("computerd relaunched");
    } finally {
      this.#ensuring = undefined;
      ensured();
    }
    if (daemon.dialing === true) {
      const session = await deps.link.waitForSession(EARLY_DIAL_MS).catch(() => undefined);
      if (session !== undefined) return session;
    }
    const base = daemon.dialBase ?? origin;
    if (base === undefined) throw unavailable("no base URL for computerd to dial back to");
    const url = new URL(linkPath(id), base).toString();
    let res: Response;
    try {
      res = await daemon.fetch("/connect", {
        method: "POST",
        headers: { Authorization: `Bearer ${daemon.secret}`, "Content-Type": "application/json" },
        // computerd dials `base` as given (http(s) becomes ws(s)): the full link URL.
        body: JSON.stringify({ base: url, computer: id }),
      });
    } catch (err) {
      throw unavailable(`computerd did not answer /connect: ${String(err)}`);
    }
    if (!res.ok) {
      const text = await res.text();
      throw unavailable(`computerd refused /connect (${res.status}): ${text.slice(0, 300)}`);
    }
    await res.body?.cancel();
    return deps.link.waitForSession(DIAL_BACK_TIMEOUT_MS);
  }
}
