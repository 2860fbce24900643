/**
 * Getting a computer to a live link with its computerd: ask the launcher to ensure the daemon
 * runs with the current launch spec, then (unless a session with that spec is already up) call
 * its `POST /connect` with the base URL to dial back to, and wait for the dial-back.
 * Concurrent callers share one attempt.
 */
import { ApiError } from "../http/errors.ts";
import { type ComputerdLink, type LinkSession, linkPath } from "./computerd-link.ts";
import {
  type ContainerLauncher,
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

function unavailable(message: string): ApiError {
  return new ApiError("EUNAVAILABLE", message, { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });
}

/** Ensures a live link to the computer's computerd. */
export class ContainerConnector {
  readonly #deps: ConnectorDeps;
  #pending: Promise<LinkSession> | undefined;

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

  async #connect(): Promise<LinkSession> {
    const deps = this.#deps;
    const launcher = deps.launcher();
    if (launcher === undefined) throw new ApiError("EUNAVAILABLE", "runtime container not available");
    const spec = deps.launchSpec();
    const hash = await specHash(spec);
    const current = deps.link.current();
    if (current !== undefined && deps.state.get()?.specHash === hash) return current;
    const daemon = await launcher.ensure(deps.computerId(), spec, hash);
    const previous = deps.state.get();
    deps.state.put({ secret: daemon.secret, specHash: hash });
    const still = deps.link.current();
    if (still !== undefined && previous?.secret === daemon.secret && previous.specHash === hash) return still;
    if (still !== undefined) deps.link.close("computerd relaunched");
    const base = daemon.dialBase ?? deps.dialBase();
    if (base === undefined) throw unavailable("no base URL for computerd to dial back to");
    const id = deps.computerId();
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
