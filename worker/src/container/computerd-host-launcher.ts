/**
 * The `computerd host` launcher client (the local default): `computerd host` listens on
 * 127.0.0.1 and runs one computerd per computer; this side only asks it, with the host token:
 * `POST {host}/computers/:id/ensure` → `{ url, secret, dialing }`, `POST .../stop`, `DELETE`, `GET`.
 */
import { ApiError } from "../http/errors.ts";
import {
  type ContainerHealth,
  type ContainerLauncher,
  type DaemonEndpoint,
  type LaunchSpec,
  RETRY_AFTER_SECONDS,
} from "./container-launcher.ts";

/** How to reach `computerd host`. */
export interface HostLauncherOptions {
  /** e.g. `http://127.0.0.1:8790` (COMPUTERD_HOST_URL). */
  url: string;
  /** Bearer token of the host (COMPUTERD_HOST_TOKEN). */
  token: string;
  /** The fetch to use (tests pass a fake host). */
  fetch?: (request: Request) => Promise<Response>;
}

/** The answer of `POST /computers/:id/ensure`. */
export interface HostEnsureAnswer {
  /** computerd's own HTTP base on 127.0.0.1. */
  url: string;
  secret: string;
  specHash: string;
  /** The daemon was started now with the `dialBack` given and dials it by itself. */
  dialing?: boolean;
}

function unavailable(message: string): ApiError {
  return new ApiError("EUNAVAILABLE", message, { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });
}

function isEnsureAnswer(value: unknown): value is HostEnsureAnswer {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.url === "string" && typeof v.secret === "string" && typeof v.specHash === "string";
}

/** A ContainerLauncher that asks a `computerd host` over HTTP. */
export class ComputerdHostLauncher implements ContainerLauncher {
  readonly kind = "host";
  readonly #base: string;
  readonly #token: string;
  readonly #fetch: (request: Request) => Promise<Response>;

  constructor(options: HostLauncherOptions) {
    this.#base = options.url.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
  }

  async #call(method: string, path: string, body?: unknown): Promise<Response> {
    const headers = new Headers({ Authorization: `Bearer ${this.#token}` });
    if (body !== undefined) headers.set("Content-Type", "application/json");
    try {
      return await this.#fetch(
        new Request(`${this.#base}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    } catch (err) {
      throw unavailable(`computerd host at ${this.#base} is not reachable: ${String(err)}`);
    }
  }

  async ensure(
    computerId: string,
    spec: LaunchSpec,
    specHash: string,
    dialBack?: string,
  ): Promise<DaemonEndpoint> {
    const res = await this.#call("POST", `/computers/${encodeURIComponent(computerId)}/ensure`, {
      spec,
      specHash,
      ...(dialBack === undefined ? {} : { dialBack }),
    });
    if (!res.ok) {
      const text = await res.text();
      throw unavailable(`computerd host could not start computerd (${res.status}): ${text.slice(0, 500)}`);
    }
    const answer: unknown = await res.json();
    if (!isEnsureAnswer(answer)) throw unavailable("computerd host answered ensure with an unexpected shape");
    const daemonBase = answer.url.replace(/\/+$/, "");
    const doFetch = this.#fetch;
    return {
      secret: answer.secret,
      fetch: (path, init) => doFetch(new Request(`${daemonBase}${path}`, init)),
      ...(answer.dialing === true ? { dialing: true } : {}),
    };
  }

  async stop(computerId: string): Promise<void> {
    const res = await this.#call("POST", `/computers/${encodeURIComponent(computerId)}/stop`);
    await res.body?.cancel();
  }

  async destroy(computerId: string): Promise<void> {
    const res = await this.#call("DELETE", `/computers/${encodeURIComponent(computerId)}`);
    await res.body?.cancel();
  }

  /**
   * `{host}/computers/:id/ports/:port/<path>`, authenticated with `Proxy-Authorization` so the
   * request's own `Authorization` header reaches the app untouched.
   */
  async fetchPort(computerId: string, port: number, request: Request): Promise<Response> {
    const { pathname, search } = new URL(request.url);
    const target = `${this.#base}/computers/${encodeURIComponent(computerId)}/ports/${port}${pathname}${search}`;
    const headers = new Headers(request.headers);
    headers.set("Proxy-Authorization", `Bearer ${this.#token}`);
    try {
      return await this.#fetch(
        new Request(target, { method: request.method, headers, body: request.body, redirect: "manual" }),
      );
    } catch (err) {
      throw unavailable(`computerd host at ${this.#base} is not reachable: ${String(err)}`);
    }
  }

  async health(computerId: string): Promise<ContainerHealth> {
    const res = await this.#call("GET", `/computers/${encodeURIComponent(computerId)}`);
    if (!res.ok) {
      await res.body?.cancel();
      return { running: false, healthy: false };
    }
    const body = (await res.json()) as Partial<ContainerHealth>;
    return { running: body.running === true, healthy: body.healthy === true };
  }
}
